"""Page elements: content, links, forms and fields, data-bound lists, and UI-only widgets.

Text on a page is a template: ``"Price: {row.price|money}"`` fills in references (see
:data:`veriweb.scaffold.values.REF_NAMESPACES`) with optional filters (``money``, ``date``,
``upper``, ``lower``, ``title``). Widgets (tabs, dialogs, collapsibles, menus) keep their
state (open, selected tab) in the UI only: it never reaches the database.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field, field_validator

from veriweb.scaffold.values import IDENT, Model, Query, Scalar, ValueExpr, check_ident

# ----------------------------------------------------------------------------- content


class Heading(Model):
    """A heading (``h1`` to ``h6``)."""

    type: Literal["heading"]
    text: str
    level: int = Field(default=2, ge=1, le=6)


class Text(Model):
    """A paragraph of text."""

    type: Literal["text"]
    text: str


class Link(Model):
    """A link; ``href`` is a URL template such as ``/product/{row.id}``."""

    type: Literal["link"]
    text: str
    href: str


class Button(Model):
    """A button that opens, closes or toggles a widget (a dialog, menu or collapsible).

    Buttons that submit data belong to forms (:class:`Form`), never here.
    """

    type: Literal["button"]
    text: str
    action: Literal["open", "close", "toggle"] = "toggle"
    target: str = Field(pattern=rf"^{IDENT}$")


# ----------------------------------------------------------------------------- fields


class Option(Model):
    """One choice of a select or radio group."""

    value: str
    label: str


class OptionsQuery(Model):
    """Choices computed from the database: one per row of ``query``."""

    query: Query
    value: str
    label: str


class _Field(Model):
    name: str
    label: str
    required: bool = False

    check_names = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "field name")))


class TextInput(_Field):
    """A one-line text box, a password box, a multi-line text area or a date input."""

    type: Literal["textbox", "password", "textarea", "date"]
    placeholder: str = ""
    value: ValueExpr = None


class Select(_Field):
    """A drop-down list; static ``options`` plus those of ``options_query``."""

    type: Literal["select"]
    options: list[Option] = []
    options_query: OptionsQuery | None = None
    value: ValueExpr = None


class Checkbox(_Field):
    """A checkbox; submits ``"on"`` when checked, nothing when not."""

    type: Literal["checkbox"]
    checked: bool = False


class Radio(_Field):
    """A radio group: one of ``options``."""

    type: Literal["radio"]
    options: list[Option] = []
    options_query: OptionsQuery | None = None
    value: ValueExpr = None


FieldElement = Annotated[Union[TextInput, Select, Checkbox, Radio], Field(discriminator="type")]


# ----------------------------------------------------------------------------- forms


class MarkerAction(Model):
    """Submit to a state-change marker; ``args`` map marker parameters to values."""

    kind: Literal["marker"]
    marker: str
    args: dict[str, ValueExpr] = {}
    redirect: str | None = None
    success_message: str | None = None


class NavigateAction(Model):
    """A GET form: go to ``route`` with the fields as query parameters (search, filters)."""

    kind: Literal["navigate"]
    route: str


class LoginAction(Model):
    """Log in with the named username and password fields; go to ``redirect`` on success."""

    kind: Literal["login"]
    username_field: str = "username"
    password_field: str = "password"
    redirect: str = "/"


class LogoutAction(Model):
    """Log out and go to ``redirect``."""

    kind: Literal["logout"]
    redirect: str = "/"


FormAction = Annotated[
    Union[MarkerAction, NavigateAction, LoginAction, LogoutAction], Field(discriminator="kind")
]


class Confirm(Model):
    """A confirmation dialog shown before the form is really submitted."""

    title: str
    text: str = ""
    confirm: str = "Confirm"
    cancel: str = "Cancel"


class Form(Model):
    """A form: fields, one submit button labelled ``submit``, and what submitting does."""

    type: Literal["form"]
    label: str = ""
    fields: list[FieldElement] = []
    submit: str = "Submit"
    action: FormAction
    confirm: Confirm | None = None


# ----------------------------------------------------------------------------- data-bound


class SortOption(Model):
    """One way to sort a list; shown as a link, kept in the URL (``?sort=KEY``)."""

    key: str = Field(pattern=rf"^{IDENT}$")
    label: str
    column: str
    dir: Literal["asc", "desc"] = "asc"


class _Bound(Model):
    query: Query
    name: str = Field(default="list", pattern=rf"^{IDENT}$")
    page_size: int | None = Field(default=None, ge=1, le=500)
    sorts: list[SortOption] = []
    empty_text: str = "Nothing here yet."


class ListElement(_Bound):
    """A list with one item per row of ``query``; ``item`` elements see the row as ``row.*``.

    With ``page_size``, the list is paginated by ``?NAME_page=N`` links; with ``sorts``, it can
    be sorted by ``?NAME_sort=KEY`` links.
    """

    type: Literal["list"]
    item: list[Element]


class TableColumn(Model):
    """One column of a table: a header and the elements of its cells."""

    header: str
    cell: list[Element]


class TableElement(_Bound):
    """A table with one row per row of ``query``."""

    type: Literal["table"]
    label: str = ""
    columns: list[TableColumn]


class Record(Model):
    """Binds the first row of ``query`` as ``row.*`` for ``elements``; ``missing_text`` if none."""

    type: Literal["record"]
    query: Query
    elements: list[Element]
    missing_text: str = "Not found."


# ----------------------------------------------------------------------------- widgets


class Tab(Model):
    """One tab of a tab set: its label and its panel's elements."""

    label: str
    elements: list[Element]


class Tabs(Model):
    """A tab set; the selected tab lives in the UI state."""

    type: Literal["tabs"]
    id: str = Field(pattern=rf"^{IDENT}$")
    tabs: list[Tab] = Field(min_length=1)
    selected: int = 0


class Dialog(Model):
    """A dialog, closed until a button opens it; while a modal dialog is open only it responds."""

    type: Literal["dialog"]
    id: str = Field(pattern=rf"^{IDENT}$")
    title: str
    elements: list[Element]
    modal: bool = True


class Collapsible(Model):
    """A section whose content shows when its toggle is expanded."""

    type: Literal["collapsible"]
    id: str = Field(pattern=rf"^{IDENT}$")
    label: str
    elements: list[Element]
    open: bool = False


class Menu(Model):
    """A menu button whose items (links or forms) show when it is open."""

    type: Literal["menu"]
    id: str = Field(pattern=rf"^{IDENT}$")
    label: str
    items: list[Element]


class Section(Model):
    """A landmark or group that holds other elements (navigation, main, footer, ...)."""

    type: Literal["section"]
    role: Literal[
        "navigation", "main", "banner", "contentinfo", "complementary", "region", "group", "search"
    ] = "group"
    label: str = ""
    elements: list[Element]


Element = Annotated[
    Union[
        Heading, Text, Link, Button, Form, ListElement, TableElement, Record,
        Tabs, Dialog, Collapsible, Menu, Section,
    ],
    Field(discriminator="type"),
]
"""Anything a page can hold."""

for _model in (ListElement, TableColumn, TableElement, Record, Tab, Tabs, Dialog, Collapsible, Menu, Section):
    _model.model_rebuild()

__all__ = [
    "Button", "Checkbox", "Collapsible", "Confirm", "Dialog", "Element", "FieldElement", "Form",
    "FormAction", "Heading", "Link", "ListElement", "LoginAction", "LogoutAction", "MarkerAction",
    "Menu", "NavigateAction", "Option", "OptionsQuery", "Radio", "Record", "Scalar", "Section",
    "Select", "SortOption", "Tab", "TableColumn", "TableElement", "Tabs", "Text", "TextInput",
]

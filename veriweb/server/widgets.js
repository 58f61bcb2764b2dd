/* veriweb widget script: the engine's UI transitions (veriweb/engine/session.py), in the browser.
 *
 * Links and forms work without it. It opens and closes dialogs, collapsibles and menus, selects
 * tabs, blocks what an open modal dialog covers, moves focus on Tab in the engine's order,
 * closes widgets on Escape, submits a form on Enter in a one-line field, and ignores the keys
 * the engine ignores. Deterministic: no timers, no randomness, no network of its own.
 * Widget state mirrors UIState.widgets: key -> true/false (toggles) or a tab index.
 */
(function () {
  "use strict";
  var doc = document;
  var state = {};
  var pendingPress = null;
  var pendingFocus = null;
  try {
    state = JSON.parse(doc.getElementById("vw-state").textContent).widgets || {};
  } catch (e) {
    state = {};
  }

  function has(k) { return Object.prototype.hasOwnProperty.call(state, k); }
  function get(k, d) { return has(k) ? state[k] : d; }
  // Python's bool() of a widget value
  function truthy(v) { return !(v === false || v === 0 || v === null || v === undefined || v === ""); }
  function bidOf(el) { return el && el.getAttribute ? (el.getAttribute("data-bid") || "") : ""; }

  function selectedTab(el) {
    var sel = get(el.getAttribute("data-vw-tabs") || el.getAttribute("data-vw-region"),
                  +el.getAttribute("data-vw-default"));
    if (typeof sel === "boolean") sel = sel ? 1 : 0;
    var count = +el.getAttribute("data-vw-count");
    if (typeof sel !== "number" || Math.floor(sel) !== sel || sel < 0 || sel >= count) sel = 0;
    return sel;
  }

  function toggleOpen(el) {
    var k = el.getAttribute("data-vw-region") || el.getAttribute("data-vw-widget");
    return truthy(get(k, el.getAttribute("data-vw-default") === "1"));
  }

  function regionOpen(el) {
    if (el.getAttribute("data-vw-kind") === "tabpanel") {
      return selectedTab(el) === +el.getAttribute("data-vw-index");
    }
    return toggleOpen(el);
  }

  function apply() {
    var i, el, open;
    var regions = doc.querySelectorAll("[data-vw-region]");
    for (i = 0; i < regions.length; i++) {
      el = regions[i];
      open = regionOpen(el);
      el.hidden = !open;
      if (el.tagName === "DIALOG") {
        if (open) el.setAttribute("open", ""); else el.removeAttribute("open");
      }
    }
    var toggles = doc.querySelectorAll("[data-vw-widget][aria-expanded]");
    for (i = 0; i < toggles.length; i++) {
      toggles[i].setAttribute("aria-expanded", toggleOpen(toggles[i]) ? "true" : "false");
    }
    var tabs = doc.querySelectorAll("[data-vw-tabs]");
    for (i = 0; i < tabs.length; i++) {
      el = tabs[i];
      el.setAttribute("aria-selected", selectedTab(el) === +el.getAttribute("data-vw-index") ? "true" : "false");
    }
  }

  // The open modal dialog that takes the input (the last one in document order), or null.
  function modal() {
    var open = doc.querySelectorAll("[data-vw-modal]:not([hidden])");
    return open.length ? open[open.length - 1] : null;
  }

  function blocked(target) {
    var m = modal();
    return m !== null && !(target && m.contains(target));
  }

  function stop(ev) {
    ev.preventDefault();
    ev.stopImmediatePropagation();
  }

  function setField(form, name, value) {
    var input = form.querySelector('input[type="hidden"][name="' + name + '"]');
    if (input) input.value = value;
  }

  function submit(form, press, field, submitter) {
    pendingPress = press;
    pendingFocus = bidOf(field);
    if (submitter) form.requestSubmit(submitter); else form.requestSubmit();
  }

  function onClick(ev) {
    var t = ev.target instanceof Element ? ev.target : null;
    if (!t) return;
    if (blocked(t)) { stop(ev); return; }
    var el = t.closest("[data-vw-widget],[data-vw-tabs],a[href]");
    if (!el) return;
    if (el.tagName === "A") {
      if (el.hasAttribute("data-vw-external")) { ev.preventDefault(); return; }
      if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) {  // no new tab or window: the engine has one
        ev.preventDefault();
        window.location.assign(el.href);
      }
      return;
    }
    if (el.hasAttribute("data-vw-widget")) {
      var op = el.getAttribute("data-vw-op");
      var now = toggleOpen(el);
      state[el.getAttribute("data-vw-widget")] = op === "open" ? true : (op === "close" ? false : !now);
    } else {
      state[el.getAttribute("data-vw-tabs")] = +el.getAttribute("data-vw-index");
    }
    apply();
  }

  // Other mouse buttons act as a plain click, as in the engine.
  function onAuxClick(ev) {
    var t = ev.target instanceof Element ? ev.target : null;
    stop(ev);
    if (t && !blocked(t)) t.click();
  }

  function tabOrder() {
    var m = modal();
    var all = doc.querySelectorAll("[data-vw-i]");
    var out = [];
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.closest("[hidden]") === null && (m === null || m.contains(el))) out.push(el);
    }
    return out;
  }

  function moveFocus(from, back) {
    var order = tabOrder();
    var n = order.length;
    if (!n) return;
    var index = order.indexOf(from);
    var next = order[(((index + (back ? -1 : 1)) % n) + n) % n];
    (next.tagName === "OPTION" ? next.closest("select") : next).focus();
  }

  function escape(from) {
    for (var k in state) {
      if (has(k) && state[k] === true) state[k] = false;
    }
    apply();
    var confirm = doc.querySelector("[data-vw-confirm]");
    if (confirm) {
      var form = doc.getElementById(confirm.getAttribute("data-vw-confirm"));
      if (form) submit(form, "Escape", from, null);
    }
  }

  function onKeyDown(ev) {
    var t = ev.target instanceof Element ? ev.target : null;
    if (blocked(t)) { stop(ev); return; }
    var key = ev.key;
    if (key === "Tab") { ev.preventDefault(); moveFocus(t, ev.shiftKey); return; }
    if (key === "Escape") { ev.preventDefault(); escape(t); return; }
    if (!t) return;
    var tag = t.tagName;
    var type = (t.getAttribute("type") || "").toLowerCase();
    if (tag === "SELECT" || (tag === "INPUT" && (type === "radio" || type === "checkbox"))) {
      // The engine changes a choice only by click, select_option, check and uncheck
      // (and Space clicks a checkbox); every other key does nothing there.
      if (!(type === "checkbox" && key === " ")) ev.preventDefault();
      return;
    }
    if (tag === "A" && key === " ") { ev.preventDefault(); return; }
    if (key === "Enter" && tag === "INPUT" && t.form) {
      ev.preventDefault();
      submit(t.form, "Enter", t, t.form.querySelector("[data-vw-submit]"));
    }
  }

  function onSubmit(ev) {
    var form = ev.target;
    setField(form, "_vw_widgets", JSON.stringify(state));
    setField(form, "_vw_press", pendingPress || "");
    setField(form, "_vw_focus", pendingFocus || "");
    pendingPress = null;
    pendingFocus = null;
  }

  function onBeforeInput(ev) {
    if (blocked(ev.target instanceof Element ? ev.target : null)) stop(ev);
  }

  doc.addEventListener("mousedown", function (ev) {  // no focus moves behind an open modal dialog
    if (blocked(ev.target instanceof Element ? ev.target : null)) stop(ev);
  }, true);
  doc.addEventListener("click", onClick, true);
  doc.addEventListener("auxclick", onAuxClick, true);
  doc.addEventListener("contextmenu", function (ev) { ev.preventDefault(); }, true);
  doc.addEventListener("keydown", onKeyDown, true);
  doc.addEventListener("beforeinput", onBeforeInput, true);
  doc.addEventListener("submit", onSubmit, true);
  doc.addEventListener("DOMContentLoaded", function () {
    var first = doc.querySelector("[autofocus]");
    if (first) first.focus();
  });
})();

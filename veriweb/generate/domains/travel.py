"""Travel blueprint: flight and hotel search, filters and sort, bookings with a passenger form, my trips, cancellation.

Description:
    A travel agency selling flights and hotel rooms. Eight to eleven cities, seven to ten city
    pairs flown both ways by four to seven airlines: two or three services per direction (a flight
    number with its times, duration and stops), each operating on most days of a schedule from
    four days ago to two weeks ahead, which makes several hundred dated flights (fare per
    passenger, seats left); about a hundred hotels (stars, guest rating, nightly rate); a few
    hundred past and upcoming bookings and stays of forty to eighty travellers. Flight search by
    origin, destination, date and passengers, results sortable by price and, on some sites, by
    duration or departure, and filterable by stops and airline; hotel search by city, check-in,
    check-out and guests, filterable by stars. Booking a flight takes a passenger form (number of
    passengers, lead passenger, email, a checked bag); booking a room takes the dates, guests and a
    name. "My trips" lists a traveller's flights and stays; either can be cancelled before departure
    or check-in only. Prices are money (integer cents).

    What varies with the structure stream: whether the home page carries the search forms (in
    tabs, or one under the other) or only the Flights and Hotels pages do; whether cities are
    picked from drop-downs or typed; whether the refine form sits plainly, in a collapsible or in
    a dialog; whether booking forms sit plainly, in a collapsible or in a tab; flights and hotels
    as lists or tables; page sizes; which sort orders exist; stops as a drop-down or radio buttons;
    the order of form fields; My trips in tabs or one table under the other; confirmation dialogs
    before booking and before cancelling; optional deals, destinations, profile pages and a
    popular-destinations box; the navigation layout (``build_chrome``) and every label.

Action Space:
    BrowserGym high-level actions on the rendered pages (see ``veriweb.engine.actions``).

Observation Space:
    The engine's page model: accessibility-tree text, element list, HTML.

Rewards:
    From the task's goal and progress predicates over the database (see ``veriweb.engine.judge``).

Starting State:
    The seeded database on 2026-06-15; the task's start URL, logged in when the task says so.

Episode End:
    As ``veriweb.engine.episode`` rules: an answer, an infeasibility report, the goal reached, a
    broken constraint or footprint, or the step budget.

Arguments:
    ``Streams`` of the site's seed: ``structure`` (pages, labels, widgets, layout), ``content``
    (records), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page, login_plan
from veriweb.generate.plan import Step, TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import all_pages, as_user, make_task, next_pages, start_elsewhere, with_login
from veriweb.generate.vocab import Labels, password, person

Row = dict[str, Any]
"""One record of the site's database, as generated."""
Data = dict[str, Any]
"""Scaffold JSON as ``kit`` builds it (elements, pages, predicates, footprints)."""

TODAY = dt.date(2026, 6, 15)
PAST_DAYS = [TODAY - dt.timedelta(days=n) for n in range(4, 0, -1)]
FUTURE_DAYS = [TODAY + dt.timedelta(days=n) for n in range(1, 15)]
CALENDAR = (dt.date(2026, 5, 1), dt.date(2026, 9, 30))
MAX_STEPS = 20
BAG_FEE = 3500

AGENCIES = ["Wayfarer", "Bluesky Travel", "Compass Trips", "Globetrotter", "Jetstream Journeys", "Northstar Travel",
            "Atlas Getaways", "Horizon Booking", "Passport Lane", "Tailwind Travel", "Voyager Hub", "Seabird Trips"]
CITIES: dict[str, tuple[str, str]] = {
    "Lisbon": ("LIS", "Portugal"), "Porto": ("OPO", "Portugal"), "Madrid": ("MAD", "Spain"),
    "Barcelona": ("BCN", "Spain"), "Seville": ("SVQ", "Spain"), "Paris": ("CDG", "France"), "Nice": ("NCE", "France"),
    "Amsterdam": ("AMS", "Netherlands"), "Brussels": ("BRU", "Belgium"), "Berlin": ("BER", "Germany"),
    "Munich": ("MUC", "Germany"), "Vienna": ("VIE", "Austria"), "Prague": ("PRG", "Czechia"), "Rome": ("FCO", "Italy"),
    "Milan": ("MXP", "Italy"), "Athens": ("ATH", "Greece"), "Dublin": ("DUB", "Ireland"),
    "Edinburgh": ("EDI", "United Kingdom"), "Copenhagen": ("CPH", "Denmark"), "Stockholm": ("ARN", "Sweden"),
    "Oslo": ("OSL", "Norway"), "Helsinki": ("HEL", "Finland"), "Zurich": ("ZRH", "Switzerland"),
    "Budapest": ("BUD", "Hungary"), "Warsaw": ("WAW", "Poland"), "Krakow": ("KRK", "Poland"),
    "Istanbul": ("IST", "Turkey"),
}
MISSING_HOTEL_NAMES = ["Grand Meridian", "Harbour Lights Inn", "Old Mill Suites", "Skyline Lodge", "Velvet Palms"]
MISSING_CITIES = ["Reykjavik", "Valletta", "Tbilisi", "Marrakesh", "Sarajevo", "Tallinn", "Riga", "Ljubljana"]
AIRLINES = [("Skylark Airways", "SY"), ("Aurora Air", "AU"), ("Bluefin Airlines", "BF"), ("Coastline Jet", "CJ"),
            ("Polar Wings", "PW"), ("Solstice Airlines", "SO"), ("Crescent Air", "CR"), ("Tern Airways", "TN"),
            ("Orion Express", "OX"), ("Kestrel Air", "KE")]
HOTEL_WORDS = ["Grand", "Harbour", "Riverside", "Park", "Central", "Royal", "Garden", "Station", "Bella Vista",
               "Lighthouse", "Cathedral", "Market", "Sunset", "Linden", "Old Mill", "Palace", "Corner", "Blue Door",
               "Ivy", "Courtyard", "Tower", "Canal", "Opera", "Lantern", "Willow", "Granite", "Velvet", "Saffron",
               "Cedar", "Orchard", "Beacon", "Juniper"]
HOTEL_KINDS = ["Hotel", "Inn", "Suites", "Lodge", "Residence", "House", "Boutique Hotel", "Apartments", "Guesthouse"]
AREAS = ["Old Town", "City Centre", "Riverside", "Airport", "Harbour", "University Quarter", "Station District",
         "Beachfront", "Arts District"]
NIGHTLY = {2: (40, 90), 3: (70, 160), 4: (110, 280), 5: (220, 560)}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
STAY_OFFSETS = [n for n in range(-40, 60) if n]
NO_FLIGHTS = "No flights found. Choose where you fly from and to, and a date, then search."
PAX_OPTIONS = [(str(n), f"{n} passenger{'s' if n > 1 else ''}") for n in range(1, 7)]
GUEST_OPTIONS = [(str(n), f"{n} guest{'s' if n > 1 else ''}") for n in range(1, 5)]
STOP_OPTIONS = [("", "Any number of stops"), ("0", "Nonstop only"), ("1", "At most 1 stop")]
STAR_OPTIONS = [("", "Any"), ("3", "3 stars or more"), ("4", "4 stars or more"), ("5", "5 stars")]

WORDING: dict[str, list[str]] = {
    "flights": ["Flights", "Book a flight", "Air travel", "Fly"],
    "hotels": ["Hotels", "Stays", "Places to stay", "Accommodation"],
    "trips": ["My trips", "My bookings", "Trips", "Your trips"],
    "destinations": ["Destinations", "Explore", "Where we fly", "Places"],
    "profile": ["My profile", "Account details", "Traveller profile", "Personal details"],
    "welcome": ["Where to next?", "Plan your next trip", "Find your next adventure", "Travel made simple"],
    "origin": ["From", "Leaving from", "Origin", "Flying from"],
    "destination": ["To", "Going to", "Destination", "Flying to"],
    "depart_date": ["Departure date", "Depart on", "Date", "Travel date"],
    "passengers": ["Passengers", "Travellers", "Adults", "Seats"],
    "search_flights": ["Search flights", "Find flights", "Show flights", "Let's go"],
    "city": ["City", "Where to stay", "Hotel city", "Staying in"],
    "check_in": ["Check-in", "Check in", "Arrival", "Check-in date"],
    "check_out": ["Check-out", "Check out", "Leaving", "Check-out date"],
    "guests": ["Guests", "Number of guests", "People", "Occupants"],
    "search_hotels": ["Search hotels", "Find hotels", "Show hotels", "Check availability"],
    "refine": ["Filters", "Refine results", "Modify search", "Edit search"],
    "stops": ["Stops", "Number of stops", "Connections", "Max stops"],
    "airline": ["Airline", "Carrier", "Airlines", "Operated by"],
    "min_stars": ["Stars", "Minimum stars", "Star rating", "Hotel class"],
    "book_section": ["Passenger details", "Your booking", "Booking", "Reserve seats"],
    "book_flight": ["Book now", "Book this flight", "Complete booking", "Pay and book"],
    "stay_section": ["Your stay", "Reservation", "Room booking", "Booking details"],
    "book_hotel": ["Reserve now", "Book this room", "Complete reservation", "Book your stay"],
    "details": ["Details", "Overview", "Summary", "At a glance"],
    "lead": ["Lead passenger", "Passenger name", "Full name", "Traveller name"],
    "email": ["Email", "Email address", "Contact email", "E-mail"],
    "bag": ["Add a checked bag ($35 per passenger)", "Checked bag (+$35 each)", "Include hold luggage ($35 each)",
            "Checked baggage, $35 per traveller"],
    "guest_name": ["Guest name", "Name on the reservation", "Main guest", "Reservation name"],
    "cancel_booking": ["Cancel booking", "Cancel this trip", "Cancel flight", "Cancel reservation"],
    "cancel_stay": ["Cancel stay", "Cancel this stay", "Cancel hotel booking", "Cancel room"],
    "keep": ["Keep my booking", "No, keep it", "Don't cancel", "Keep it"],
    "trip_flights": ["Flights", "Flight bookings", "Air", "Flights booked"],
    "trip_hotels": ["Hotels", "Hotel stays", "Stays", "Rooms"],
    "choose_city": ["Choose a city", "Select a city", "Any city", "Pick a city"],
    "duration_asc": ["Shortest first", "Fastest", "Duration", "Quickest first"],
    "depart_asc": ["Earliest departure", "Departure time", "Earliest first", "Leaves earliest"],
    "depart_desc": ["Latest departure", "Leaves latest", "Latest first", "Departure: latest"],
    "stars_desc": ["Most stars", "Stars: high to low", "Highest class", "Luxury first"],
    "close": ["Close", "Done", "Hide", "Close filters"],
}


class _Words:
    """The site's labels: this module's own concepts (``WORDING``) and, for the rest, the shared bank."""

    def __init__(self, labels: Labels) -> None:
        self.labels = labels
        self._own = {concept: labels.pick(concept, options) for concept, options in WORDING.items()}

    def __getitem__(self, concept: str) -> str:
        return self._own[concept] if concept in self._own else self.labels[concept]


# ----------------------------------------------------------------------------- content


def _code(rng: random.Random, taken: set[str]) -> str:
    while True:
        code = "".join(rng.choices(CODE_CHARS, k=6))
        if code not in taken:
            taken.add(code)
            return code


def _clock(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def _schedule(rng: random.Random, cities: list[Row], airlines: list[Row]) -> tuple[list[Row], list[Row]]:
    """Services (a flight number's route and times) between some city pairs, two or three each way, and
    their dated flights (fare and seats left) on the days each operates."""
    pairs = [(a, b) for a in range(len(cities)) for b in range(a + 1, len(cities))]
    routes = sorted(rng.sample(pairs, min(len(pairs), rng.randint(7, 10))))
    numbers: set[str] = set()
    services = []
    for a, b in routes:
        base = rng.randrange(70, 235, 5)
        fare = base * rng.randint(60, 95)
        for origin, destination in ((a, b), (b, a)):
            for slot in sorted(rng.sample(range(6 * 12, 22 * 12), rng.choice([2, 3, 3]))):
                airline = rng.choice(airlines)
                number = f"{airline['code']} {rng.randint(100, 989)}"
                while number in numbers:
                    number = f"{airline['code']} {rng.randint(100, 989)}"
                numbers.add(number)
                stops = rng.choices([0, 1, 2], [55, 35, 10])[0]
                duration = base + stops * rng.randrange(55, 150, 5)
                arrive = slot * 5 + duration
                services.append({"id": len(services) + 1, "number": number, "airline_id": airline["id"],
                                 "origin_id": cities[origin]["id"],
                                 "destination_id": cities[destination]["id"], "depart": _clock(slot * 5),
                                 "arrive": _clock(arrive) + (" (+1)" if arrive >= 24 * 60 else ""),
                                 "duration": duration, "length": f"{duration // 60}h {duration % 60:02d}m",
                                 "stops": stops, "fare": fare * (1.0, 0.82, 0.7)[stops] * rng.uniform(0.85, 1.2),
                                 "often": rng.uniform(0.6, 0.95)})
    flights: list[Row] = []
    for day in PAST_DAYS + FUTURE_DAYS:
        weekend = 1.12 if day.weekday() >= 4 else 1.0
        date = day.isoformat()
        for service in services:
            if rng.random() > service["often"]:
                continue
            price = max(2999, int(service["fare"] * weekend * (0.8 + 0.6 * rng.random()) / 100) * 100 + 99)
            chance = rng.random()
            seats = int(chance * 60) if chance < 0.15 else 9 + int(chance * 80)
            flights.append({"id": len(flights) + 1, "service_id": service["id"], "date": date, "price": price,
                            "seats": 0 if chance < 0.03 else seats})
    for service in services:
        del service["fare"], service["often"]
    return services, flights


def _hotels(rng: random.Random, cities: list[Row]) -> list[Row]:
    hotels: list[Row] = []
    names: set[str] = set()
    for city in cities:
        for _ in range(rng.randint(6, 14)):
            name = f"{rng.choice(HOTEL_WORDS)} {rng.choice(HOTEL_KINDS)}"
            while name in names:
                name = f"{rng.choice(HOTEL_WORDS)} {rng.choice(HOTEL_KINDS)}"
            names.add(name)
            stars = rng.choices([2, 3, 4, 5], [10, 35, 40, 15])[0]
            low, high = NIGHTLY[stars]
            hotels.append({"id": len(hotels) + 1, "name": name, "city_id": city["id"], "area": rng.choice(AREAS),
                           "stars": stars, "rating": round(min(9.8, rng.uniform(5.8, 8.4) + (stars - 3) * 0.4), 1),
                           "price": rng.randint(low, high) * 100, "breakfast": rng.random() < 0.5})
    return hotels


def _content(rng: random.Random) -> dict[str, list[Row]]:
    """Every record of one site."""
    names = sorted(rng.sample(sorted(CITIES), rng.randint(8, 11)))
    cities = [{"id": i + 1, "name": n, "code": CITIES[n][0], "country": CITIES[n][1]} for i, n in enumerate(names)]
    airlines = [{"id": i + 1, "name": n, "code": c}
                for i, (n, c) in enumerate(sorted(rng.sample(AIRLINES, rng.randint(4, 7))))]
    services, flights = _schedule(rng, cities, airlines)
    dated = [services[f["service_id"] - 1] | f for f in flights]
    hotels = _hotels(rng, cities)
    users = []
    for number in range(1, rng.randint(40, 80) + 1):
        first, last = person(rng)
        username = f"{first.lower()}{number}"
        users.append({"id": number, "username": username, "password": password(rng, username),
                      "name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}{number}@mail.example"})
    codes: set[str] = set()
    bookings: list[Row] = []
    held: set[tuple[int, int]] = set()
    for _ in range(rng.randint(120, 320)):
        user, flight = rng.choice(users), rng.choice(dated)
        if (user["id"], flight["id"]) in held:
            continue
        held.add((user["id"], flight["id"]))
        passengers = rng.choices([1, 2, 3], [60, 30, 10])[0]
        bag = rng.random() < 0.4
        day = dt.date.fromisoformat(flight["date"])
        other = rng.random() < 0.15
        bookings.append({"id": len(bookings) + 1, "reference": _code(rng, codes), "user_id": user["id"],
                         "flight_id": flight["id"], "passengers": passengers, "bag": bag,
                         "name": " ".join(person(rng)) if other else user["name"], "email": user["email"],
                         "total": passengers * (flight["price"] + (BAG_FEE if bag else 0)),
                         "status": "cancelled" if rng.random() < 0.12 else "confirmed",
                         "booked": min(day - dt.timedelta(days=rng.randint(3, 60)), TODAY).isoformat()})
    stays: list[Row] = []
    booked: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for _ in range(rng.randint(80, 240)):
        user, hotel = rng.choice(users), rng.choice(hotels)
        check_in = TODAY + dt.timedelta(days=rng.choice(STAY_OFFSETS))
        nights = rng.randint(1, 7)
        ci, co = check_in.isoformat(), (check_in + dt.timedelta(days=nights)).isoformat()
        nights_there = booked.setdefault((user["id"], hotel["id"]), [])
        if any(a < co and ci < b for a, b in nights_there):
            continue
        nights_there.append((ci, co))
        stays.append({"id": len(stays) + 1, "reference": _code(rng, codes), "user_id": user["id"],
                      "hotel_id": hotel["id"], "check_in": ci, "check_out": co,
                      "nights": nights, "guests": rng.choices([1, 2, 3], [30, 55, 15])[0], "name": user["name"],
                      "total": nights * hotel["price"], "status": "cancelled" if rng.random() < 0.12 else "confirmed",
                      "booked": min(check_in - dt.timedelta(days=rng.randint(1, 60)), TODAY).isoformat()})
    first, last = CALENDAR
    calendar = [{"id": n + 1, "day": (first + dt.timedelta(days=n)).isoformat(), "n": n + 1}
                for n in range((last - first).days + 1)]
    return {"cities": cities, "airlines": airlines, "services": services, "flights": flights, "dated": dated,
            "hotels": hotels, "users": users,
            "bookings": bookings, "stays": stays, "calendar": calendar}


def _tables(data: dict[str, list[Row]]) -> list[Data]:
    return [
        kit.table_def("cities", [("id", "integer"), ("name", "text"), ("code", "text"), ("country", "text")],
                      data["cities"]),
        kit.table_def("airlines", [("id", "integer"), ("name", "text"), ("code", "text")], data["airlines"]),
        kit.table_def("services", [("id", "integer"), ("number", "text"), ("airline_id", "integer"),
                                   ("origin_id", "integer"), ("destination_id", "integer"), ("depart", "text"),
                                   ("arrive", "text"), ("duration", "integer"), ("length", "text"),
                                   ("stops", "integer")], data["services"],
                      foreign_keys=[("airline_id", "airlines"), ("origin_id", "cities"), ("destination_id", "cities")]),
        kit.table_def("flights", [("id", "integer"), ("service_id", "integer"), ("date", "date"), ("price", "money"),
                                  ("seats", "integer")], data["flights"], foreign_keys=[("service_id", "services")],
                      indexes=[["date"]]),
        kit.table_def("hotels", [("id", "integer"), ("name", "text"), ("city_id", "integer"), ("area", "text"),
                                 ("stars", "integer"), ("rating", "real"), ("price", "money"),
                                 ("breakfast", "boolean")], data["hotels"], foreign_keys=[("city_id", "cities")],
                      indexes=[["name"]]),
        kit.table_def("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("email", "text")], data["users"], indexes=[["username"]]),
        kit.table_def("bookings", [("id", "integer"), ("reference", "text"), ("user_id", "integer"),
                                   ("flight_id", "integer"), ("passengers", "integer"), ("bag", "boolean"),
                                   ("name", "text"), ("email", "text"), ("total", "money"), ("status", "text"),
                                   ("booked", "date")], data["bookings"],
                      foreign_keys=[("user_id", "users"), ("flight_id", "flights")]),
        kit.table_def("stays", [("id", "integer"), ("reference", "text"), ("user_id", "integer"),
                                ("hotel_id", "integer"), ("check_in", "date"), ("check_out", "date"),
                                ("nights", "integer"), ("guests", "integer"), ("name", "text"), ("total", "money"),
                                ("status", "text"), ("booked", "date")],
                      data["stays"], foreign_keys=[("user_id", "users"), ("hotel_id", "hotels")]),
        kit.table_def("calendar", [("id", "integer"), ("day", "date"), ("n", "integer")], data["calendar"],
                      indexes=[["day"]]),
    ]


VIEWS = [
    {"name": "flight_view", "money_columns": ["price"],
     "sql": "SELECT f.id AS id, s.number AS number, s.airline_id AS airline_id, a.name AS airline, "
            "a.code AS airline_code, s.origin_id AS origin_id, o.name AS origin_city, o.code AS origin_code, "
            "s.destination_id AS destination_id, d.name AS dest_city, d.code AS dest_code, f.date AS date, "
            "s.depart AS depart, s.arrive AS arrive, "
            "s.duration AS duration, s.length AS length, s.stops AS stops, CASE s.stops WHEN 0 THEN 'Nonstop' "
            "WHEN 1 THEN '1 stop' ELSE s.stops || ' stops' END AS stops_text, f.price AS price, f.seats AS seats "
            "FROM flights f JOIN services s ON s.id = f.service_id JOIN airlines a ON a.id = s.airline_id "
            "JOIN cities o ON o.id = s.origin_id JOIN cities d ON d.id = s.destination_id"},
    {"name": "hotel_view", "money_columns": ["price"],
     "sql": "SELECT h.id AS id, h.name AS name, h.city_id AS city_id, c.name AS city, c.code AS city_code, "
            "c.country AS country, h.area AS area, h.stars AS stars, h.rating AS rating, h.price AS price, "
            "h.breakfast AS breakfast, CASE WHEN h.breakfast THEN 'Breakfast included' ELSE 'Room only' END AS board "
            "FROM hotels h JOIN cities c ON c.id = h.city_id"},
    {"name": "booking_view", "money_columns": ["total"],
     "sql": "SELECT b.id AS id, b.reference AS reference, b.user_id AS user_id, b.flight_id AS flight_id, "
            "b.passengers AS passengers, b.bag AS bag, CASE WHEN b.bag THEN 'Yes' ELSE 'No' END AS bag_text, "
            "b.name AS name, b.email AS email, b.total AS total, b.status AS status, b.booked AS booked, "
            "f.number AS number, f.date AS date, f.depart AS depart, f.arrive AS arrive, f.airline AS airline, "
            "f.origin_city AS origin_city, f.dest_city AS dest_city, CASE WHEN b.status = 'cancelled' THEN 'Cancelled' "
            "WHEN f.date > vw_today() THEN 'Upcoming' ELSE 'Completed' END AS state "
            "FROM bookings b JOIN flight_view f ON f.id = b.flight_id"},
    {"name": "stay_view", "money_columns": ["total"],
     "sql": "SELECT s.id AS id, s.reference AS reference, s.user_id AS user_id, s.hotel_id AS hotel_id, "
            "h.name AS hotel, c.name AS city, h.stars AS stars, s.check_in AS check_in, s.check_out AS check_out, "
            "s.nights AS nights, s.guests AS guests, s.name AS name, s.total AS total, s.status AS status, "
            "s.booked AS booked, CASE WHEN s.status = 'cancelled' THEN 'Cancelled' WHEN s.check_in > vw_today() "
            "THEN 'Upcoming' WHEN s.check_out > vw_today() THEN 'Checked in' ELSE 'Completed' END AS state "
            "FROM stays s JOIN hotels h ON h.id = s.hotel_id JOIN cities c ON c.id = h.city_id"},
]


# ----------------------------------------------------------------------------- markers


def _markers(words: _Words) -> list[Data]:
    new_ref = "substr('00000' || ((SELECT coalesce(max(id), 0) FROM {t}) + 1), -5, 5)"
    flight_id, booking_id, stay_id = ref("param.flight_id"), ref("param.booking_id"), ref("param.stay_id")
    ci, co = ref("param.check_in"), ref("param.check_out")
    return [
        kit.marker("book_flight", [kit.param("flight_id", "integer"),
                                   kit.param("passengers", "integer", words["passengers"], min=1, max=6),
                                   kit.param("name", "text", words["lead"], min_length=2, max_length=80),
                                   kit.param("email", "text", words["email"], min_length=5, max_length=120),
                                   kit.param("bag", "boolean", "Checked bag")],
                   [kit.effect("insert", "bookings",
                               "INSERT INTO bookings (reference, user_id, flight_id, passengers, bag, name, email, "
                               f"total, status, booked) SELECT 'W' || {new_ref.format(t='bookings')}, :user_id, id, "
                               f":passengers, :bag, :name, :email, :passengers * (price + CASE WHEN :bag THEN "
                               f"{BAG_FEE} ELSE 0 END), 'confirmed', :today FROM flights WHERE id = :flight_id"),
                    kit.effect("update", "flights",
                               "UPDATE flights SET seats = seats - :passengers WHERE id = :flight_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM flights WHERE id = :f AND date > :today)",
                                          f=flight_id), "This flight has already departed: choose a later one."),
                        kit.check(kit.sql("SELECT :e LIKE '%_@_%._%'", e=ref("param.email")),
                                  "Please enter a valid email address."),
                        kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM bookings WHERE user_id = :user_id AND "
                                          "flight_id = :f AND status = 'confirmed')", f=flight_id),
                                  "You already have a booking on this flight.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM flights WHERE seats < 0)"),
                                  "Sorry, there are not enough seats left on this flight.")],
                   message="Your booking could not be completed."),
        kit.marker("cancel_booking", [kit.param("booking_id", "integer")],
                   [kit.effect("update", "flights",
                               "UPDATE flights SET seats = seats + (SELECT passengers FROM bookings WHERE id = "
                               ":booking_id) WHERE id = (SELECT flight_id FROM bookings WHERE id = :booking_id AND "
                               "user_id = :user_id AND status = 'confirmed')"),
                    kit.effect("update", "bookings", "UPDATE bookings SET status = 'cancelled' WHERE id = :booking_id "
                                                     "AND user_id = :user_id AND status = 'confirmed'")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM bookings WHERE id = :b AND user_id = :user_id "
                                          "AND status = 'confirmed')", b=booking_id), "This booking is not active."),
                        kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM bookings b JOIN flights f ON "
                                          "f.id = b.flight_id WHERE b.id = :b AND f.date > :today)", b=booking_id),
                                  "This flight has already departed, so it can no longer be cancelled.")],
                   irreversible=True, message="The booking could not be cancelled."),
        kit.marker("book_stay", [kit.param("hotel_id", "integer"),
                                 kit.param("check_in", "date", words["check_in"]),
                                 kit.param("check_out", "date", words["check_out"]),
                                 kit.param("guests", "integer", words["guests"], min=1, max=4),
                                 kit.param("name", "text", words["guest_name"], min_length=2, max_length=80)],
                   [kit.effect("insert", "stays",
                               "INSERT INTO stays (reference, user_id, hotel_id, check_in, check_out, nights, guests, "
                               f"name, total, status, booked) SELECT 'H' || {new_ref.format(t='stays')}, :user_id, "
                               "h.id, :check_in, :check_out, n.nights, :guests, :name, n.nights * h.price, "
                               "'confirmed', :today FROM hotels h, (SELECT (SELECT n FROM calendar WHERE day = "
                               ":check_out) - (SELECT n FROM calendar WHERE day = :check_in) AS nights) n "
                               "WHERE h.id = :hotel_id")],
                   pre=[kit.check(kit.sql("SELECT :ci > :today", ci=ci), "Check-in must be after today."),
                        kit.check(kit.sql("SELECT :co > :ci", ci=ci, co=co), "Check-out must be after check-in."),
                        kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM calendar WHERE day = :co)", co=co),
                                  "We take reservations until September 30, 2026."),
                        kit.check(kit.sql("SELECT (SELECT n FROM calendar WHERE day = :co) - (SELECT n FROM "
                                          "calendar WHERE day = :ci) <= 21", ci=ci, co=co),
                                  "A stay can last at most 21 nights.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM stays a JOIN stays b ON "
                                          "b.user_id = a.user_id AND b.hotel_id = a.hotel_id AND b.id > a.id WHERE "
                                          "a.user_id = :user_id AND a.status = 'confirmed' AND b.status = 'confirmed' "
                                          "AND a.check_in < b.check_out AND b.check_in < a.check_out)"),
                                  "You already have a room at this hotel on those dates.")],
                   message="Your reservation could not be made."),
        kit.marker("cancel_stay", [kit.param("stay_id", "integer")],
                   [kit.effect("update", "stays", "UPDATE stays SET status = 'cancelled' WHERE id = :stay_id "
                                                  "AND user_id = :user_id AND status = 'confirmed'")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM stays WHERE id = :s AND user_id = :user_id AND "
                                          "status = 'confirmed')", s=stay_id), "This reservation is not active."),
                        kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM stays WHERE id = :s AND check_in > :today)",
                                          s=stay_id),
                                  "This stay has already begun, so it can no longer be cancelled.")],
                   irreversible=True, message="The reservation could not be cancelled."),
    ]


# ----------------------------------------------------------------------------- the site


class _Ui:
    """The structural choices of one site (drawn from the structure stream)."""

    def __init__(self, rng: random.Random, words: _Words) -> None:
        self.search_ui = rng.choice(["tabs", "plain", "pages"])
        self.refine_ui = rng.choice(["plain", "collapsible", "dialog"])
        self.booking_ui = rng.choice(["plain", "collapsible", "tabs"])
        self.trips_ui = rng.choice(["tabs", "plain"])
        self.city_ui = rng.choice(["select", "select", "text"])
        self.stops_ui = rng.choice(["select", "radio"])
        self.flight_kind = rng.choice(["list", "table"])
        self.hotel_kind = rng.choice(["list", "table"])
        self.flight_page_size = rng.choice([5, 8, 10])
        self.hotel_page_size = rng.choice([4, 5, 6, 8])
        self.confirm_book = rng.random() < 0.5
        self.confirm_cancel = rng.random() < 0.7
        self.has_deals = rng.random() < 0.5
        self.has_destinations = rng.random() < 0.5
        self.has_profile = rng.random() < 0.5
        self.has_popular = rng.random() < 0.5
        self.flight_order = rng.sample(["date", "passengers"], 2)
        self.hotel_order = rng.sample(["dates", "guests"], 2)
        self.book_order = rng.sample(["passengers", "name", "email"], 3)
        self.stay_order = rng.sample(["dates", "guests", "name"], 3)
        optional = rng.sample(["duration_asc", "depart_asc", "depart_desc", "price_desc"], rng.randint(0, 3))
        columns = {"price_asc": "price", "price_desc": "price", "duration_asc": "duration", "depart_asc": "depart",
                   "depart_desc": "depart", "rating_desc": "rating", "stars_desc": "stars", "name_asc": "name"}
        self.flight_sorts = [(k, words[k], columns[k], "desc" if k.endswith("desc") else "asc")
                             for k in ["price_asc"] + sorted(optional)]
        hotel_optional = rng.sample(["rating_desc", "stars_desc", "name_asc"], rng.randint(0, 2))
        self.hotel_sorts = [(k, words[k], columns[k], "desc" if k.endswith("desc") else "asc")
                            for k in ["price_asc"] + sorted(hotel_optional)]
        self.nav_style = "topbar"  # set from the chrome, which draws it after the pages' choices

    def flight_sort(self, key: str) -> str | None:
        return next((label for k, label, _, _ in self.flight_sorts if k == key), None)

    def hotel_sort(self, key: str) -> str | None:
        return next((label for k, label, _, _ in self.hotel_sorts if k == key), None)


def build(streams: Streams) -> Draft:
    """Build one travel agency (see the module docstring)."""
    srng = streams.structure
    labels = Labels(srng)
    words = _Words(labels)
    site_name = srng.choice(AGENCIES)
    ui = _Ui(srng, words)
    data = _content(streams.content)

    nav = [(words["home"], "/"), (words["flights"], "/flights"), (words["hotels"], "/hotels"),
           (words["trips"], "/trips")]
    if ui.has_deals:
        nav.append((words["deals"], "/deals"))
    if ui.has_destinations:
        nav.append((words["destinations"], "/destinations"))
    if ui.has_profile:
        nav.append((words["profile"], "/profile"))
    chrome = build_chrome(srng, labels, site_name, nav)
    ui.nav_style = chrome.nav_style
    pages = _pages(words, ui, data, site_name, chrome.crumbs)
    pages += [login_page(labels, f"Log in to see your trips with {site_name}."), *chrome.pages]
    site = {"name": site_name, "clock": {"today": TODAY.isoformat()},
            "auth": {"table": "users", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": {"tables": _tables(data), "views": VIEWS}, "markers": _markers(words),
            "layout": chrome.layout, "pages": pages}
    ctx = _Ctx(streams.tasks, words, ui, data)
    start_pages = [p["route"] for p in chrome.pages]
    return Draft(site=site, tasks=_tasks(ctx, start_pages, site_name))


def _pages(words: _Words, ui: _Ui, data: dict[str, list[Row]], site_name: str,
           crumbs: Callable[[list[tuple[str, str]]], list[Data]]) -> list[Data]:
    """Every page of the site but the log-in and information pages."""
    crumb = crumbs([(words["home"], "/")])
    return [_home(words, ui, data, site_name), *_flight_pages(words, ui, data, crumb),
            *_hotel_pages(words, ui, data, crumb), *_trip_pages(words, ui), *_extra_pages(words, ui)]


def _city_field(words: _Words, ui: _Ui, cities: list[Row], name: str, label: str, value: Any, *,
                with_code: bool) -> Data:
    if ui.city_ui == "text":
        return kit.textbox(name, label, value=value, placeholder="City")
    return kit.select(name, label, [("", words["choose_city"])] + [
        (c["code"], f"{c['name']} ({c['code']})" if with_code else c["name"]) for c in cities], value=value)


def _flight_fields(words: _Words, ui: _Ui, data: dict[str, list[Row]], *, on_results: bool) -> list[Data]:
    """The flight search form's fields: prefilled from the URL on the results page, which adds the filters."""
    def q(name: str, default: Any = None) -> Any:
        return ref(f"query.{name}") if on_results else default

    parts = {"date": kit.textbox("date", words["depart_date"], kind="date", value=q("date")),
             "passengers": kit.select("passengers", words["passengers"], PAX_OPTIONS, value=q("passengers", "1"))}
    fields = [_city_field(words, ui, data["cities"], "origin", words["origin"], q("origin"), with_code=True),
              _city_field(words, ui, data["cities"], "destination", words["destination"], q("destination"),
                          with_code=True)]
    fields += [parts[name] for name in ui.flight_order]
    if on_results:
        stops = kit.select if ui.stops_ui == "select" else kit.radio
        fields.append(stops("stops", words["stops"], STOP_OPTIONS, value=ref("query.stops")))
        fields.append(kit.select("airline", words["airline"], [("", "All airlines")] + [
            (a["code"], a["name"]) for a in data["airlines"]], value=ref("query.airline")))
    return fields


def _hotel_fields(words: _Words, ui: _Ui, data: dict[str, list[Row]], *, on_results: bool) -> list[Data]:
    """The hotel search form's fields: prefilled from the URL on the results page, which adds the star filter."""
    def q(name: str, default: Any = None) -> Any:
        return ref(f"query.{name}") if on_results else default

    parts = {"dates": [kit.textbox("check_in", words["check_in"], kind="date", value=q("check_in")),
                       kit.textbox("check_out", words["check_out"], kind="date", value=q("check_out"))],
             "guests": [kit.select("guests", words["guests"], GUEST_OPTIONS, value=q("guests", "2"))]}
    fields = [_city_field(words, ui, data["cities"], "city", words["city"], q("city"), with_code=False)]
    for name in ui.hotel_order:
        fields += parts[name]
    if on_results:
        fields.append(kit.select("stars", words["min_stars"], STAR_OPTIONS, value=ref("query.stars")))
    return fields


def _refine(words: _Words, ui: _Ui, widget: str, form: Data) -> list[Data]:
    """The results page's search form: plainly, in a collapsible (open when it is the only search form) or a dialog."""
    if ui.refine_ui == "plain":
        return [form]
    if ui.refine_ui == "collapsible":
        return [kit.collapsible(widget, words["refine"], [form], is_open=ui.search_ui == "pages")]
    return [kit.button(words["refine"], widget, "open"),
            kit.dialog(widget, words["refine"], [form, kit.button(words["close"], widget, "close")])]


def _placed(style: str, widget: str, details_label: str, details: list[Data], form_label: str,
            form: Data) -> list[Data]:
    """Details and a booking form: one under the other, the form in a collapsible, or both in tabs."""
    if style == "plain":
        return details + [kit.heading(form_label), form]
    if style == "collapsible":
        return details + [kit.collapsible(widget + "_box", form_label, [form])]
    return [kit.tabs(widget, [(details_label, details), (form_label, [form])])]


def _home(words: _Words, ui: _Ui, data: dict[str, list[Row]], site_name: str) -> Data:
    flights = kit.form(words["search_flights"], kit.navigate_action("/flights"),
                       _flight_fields(words, ui, data, on_results=False), label=words["flights"])
    hotels = kit.form(words["search_hotels"], kit.navigate_action("/hotels"),
                      _hotel_fields(words, ui, data, on_results=False), label=words["hotels"])
    home: list[Data] = [
        kit.heading(words["welcome"], 1),
        kit.text(f"Flights and hotels across {len(data['cities'])} cities. Today is {{clock.today|date}}.")]
    if ui.search_ui == "tabs":
        home.append(kit.tabs("search_tabs", [(words["flights"], [flights]), (words["hotels"], [hotels])]))
    elif ui.search_ui == "plain":
        home += [kit.heading(words["flights"]), flights, kit.heading(words["hotels"]), hotels]
    else:
        home.append(kit.text(f"Search on the {words['flights']} and {words['hotels']} pages, and find your "
                             f"bookings under {words['trips']}."))
    if ui.has_popular:
        home += [kit.heading("Popular destinations"),
                 kit.listing("popular", kit.query("cities", order=[("name", "asc")], limit=4),
                             [kit.text("{row.name}, {row.country}")])]
    return kit.page("home", "/", site_name, home)


def _flight_pages(words: _Words, ui: _Ui, data: dict[str, list[Row]], crumb: list[Data]) -> list[Data]:
    """Flight search and results, and a flight's page with the passenger form."""
    by_code = ui.city_ui == "select"
    op = "=" if by_code else "contains"
    results_query = kit.query(
        "flight_view", cond("date", ref("clock.today"), ">"),
        cond("origin_code" if by_code else "origin_city", ref("query.origin"), op, skip_if_empty=True),
        cond("dest_code" if by_code else "dest_city", ref("query.destination"), op, skip_if_empty=True),
        cond("date", ref("query.date")), cond("seats", ref("query.passengers"), ">=", skip_if_empty=True),
        cond("stops", ref("query.stops"), "<=", skip_if_empty=True),
        cond("airline_code", ref("query.airline"), skip_if_empty=True),
        order=[("date", "asc"), ("depart", "asc"), ("id", "asc")])
    href = "/flight/{row.id}?passengers={query.passengers}"
    if ui.flight_kind == "list":
        results = kit.listing("flights", results_query, [
            kit.link("{row.depart} – {row.arrive}", href),
            kit.text("{row.origin_code} → {row.dest_code}, {row.date|date} · {row.airline} {row.number} · "
                     "{row.length}, {row.stops_text}"),
            kit.text("{row.price|money} per passenger · {row.seats} seats left")],
            page_size=ui.flight_page_size, sorts=ui.flight_sorts, empty=NO_FLIGHTS)
    else:
        results = kit.table("flights", results_query, [
            ("Flight", [kit.link("{row.number}", href)]), ("Departs", [kit.text("{row.depart}")]),
            ("Arrives", [kit.text("{row.arrive}")]), ("Duration", [kit.text("{row.length}")]),
            ("Stops", [kit.text("{row.stops_text}")]), ("Airline", [kit.text("{row.airline}")]),
            ("Price", [kit.text("{row.price|money}")])],
            label=words["flights"], page_size=ui.flight_page_size, sorts=ui.flight_sorts, empty=NO_FLIGHTS)
    search = kit.form(words["search_flights"], kit.navigate_action("/flights"),
                      _flight_fields(words, ui, data, on_results=True), label=words["refine"])
    details = [kit.text("{row.airline} flight {row.number}"),
               kit.text("{row.date|date}: departs {row.origin_city} ({row.origin_code}) at {row.depart}, arrives "
                        "{row.dest_city} ({row.dest_code}) at {row.arrive}"),
               kit.text("Duration {row.length}, {row.stops_text}."),
               kit.text("Fare: {row.price|money} per passenger."), kit.text("Seats left: {row.seats}")]
    parts = {"passengers": kit.select("passengers", words["passengers"], PAX_OPTIONS, value=ref("query.passengers")),
             "name": kit.textbox("name", words["lead"], required=True, value=ref("user.name")),
             "email": kit.textbox("email", words["email"], required=True, value=ref("user.email"))}
    book = kit.form(
        words["book_flight"],
        kit.marker_action("book_flight", {"flight_id": ref("row.id"), "passengers": ref("field.passengers"),
                                          "name": ref("field.name"), "email": ref("field.email"),
                                          "bag": ref("field.bag")},
                          redirect="/trips/{result.id}", message="Your flight is booked. Have a good trip!"),
        [parts[name] for name in ui.book_order] + [kit.checkbox("bag", words["bag"])], label=words["book_section"],
        confirm=kit.confirm("Book this flight?", words["confirm"], words["cancel"]) if ui.confirm_book else None)
    body = _placed(ui.booking_ui, "flight_tabs", words["details"], details, words["book_section"], book)
    return [kit.page("flights", "/flights", words["flights"],
                     crumb + [kit.heading(words["flights"], 1), *_refine(words, ui, "flight_refine", search), results]),
            kit.page("flight", "/flight/{id:int}", "Flight", [kit.record(
                kit.query("flight_view", cond("id", ref("param.id"))),
                crumb + [kit.heading("{row.origin_city} to {row.dest_city}", 1), *body],
                "This flight does not exist.")])]


def _hotel_pages(words: _Words, ui: _Ui, data: dict[str, list[Row]], crumb: list[Data]) -> list[Data]:
    """Hotel search and results, and a hotel's page with the reservation form."""
    by_code = ui.city_ui == "select"
    query = kit.query("hotel_view", cond("city_code" if by_code else "city", ref("query.city"),
                                         "=" if by_code else "contains", skip_if_empty=True),
                      cond("stars", ref("query.stars"), ">=", skip_if_empty=True),
                      order=[("name", "asc"), ("id", "asc")])
    href = "/hotel/{row.id}?check_in={query.check_in}&check_out={query.check_out}&guests={query.guests}"
    empty = "No hotels match your search."
    if ui.hotel_kind == "list":
        results = kit.listing("hotels", query, [
            kit.link("{row.name}", href),
            kit.text("{row.stars}-star · {row.area}, {row.city} · guest rating {row.rating}/10 · {row.board}"),
            kit.text("{row.price|money} per night")],
            page_size=ui.hotel_page_size, sorts=ui.hotel_sorts, empty=empty)
    else:
        results = kit.table("hotels", query, [
            ("Hotel", [kit.link("{row.name}", href)]), ("Area", [kit.text("{row.area}")]),
            ("Stars", [kit.text("{row.stars}")]), ("Rating", [kit.text("{row.rating}/10")]),
            ("Per night", [kit.text("{row.price|money}")])],
            label=words["hotels"], page_size=ui.hotel_page_size, sorts=ui.hotel_sorts, empty=empty)
    search = kit.form(words["search_hotels"], kit.navigate_action("/hotels"),
                      _hotel_fields(words, ui, data, on_results=True), label=words["refine"])
    parts = {"dates": [kit.textbox("check_in", words["check_in"], kind="date", required=True,
                                   value=ref("query.check_in")),
                       kit.textbox("check_out", words["check_out"], kind="date", required=True,
                                   value=ref("query.check_out"))],
             "guests": [kit.select("guests", words["guests"], GUEST_OPTIONS, value=ref("query.guests"))],
             "name": [kit.textbox("name", words["guest_name"], required=True, value=ref("user.name"))]}
    reserve = kit.form(
        words["book_hotel"],
        kit.marker_action("book_stay", {"hotel_id": ref("row.id"), "check_in": ref("field.check_in"),
                                        "check_out": ref("field.check_out"), "guests": ref("field.guests"),
                                        "name": ref("field.name")},
                          redirect="/stays/{result.id}", message="Your room is reserved."),
        [f for name in ui.stay_order for f in parts[name]], label=words["stay_section"],
        confirm=kit.confirm("Reserve this room?", words["confirm"], words["cancel"]) if ui.confirm_book else None)
    details = [kit.text("{row.stars}-star hotel in {row.area}, {row.city}, {row.country}"),
               kit.text("Guest rating {row.rating}/10"), kit.text("{row.board}"),
               kit.text("{row.price|money} per night")]
    body = _placed(ui.booking_ui, "hotel_tabs", words["details"], details, words["stay_section"], reserve)
    return [kit.page("hotels", "/hotels", words["hotels"],
                     crumb + [kit.heading(words["hotels"], 1), *_refine(words, ui, "hotel_refine", search), results]),
            kit.page("hotel", "/hotel/{id:int}", "Hotel", [kit.record(
                kit.query("hotel_view", cond("id", ref("param.id"))),
                crumb + [kit.heading("{row.name}", 1), *body], "This hotel does not exist.")])]


def _trip_pages(words: _Words, ui: _Ui) -> list[Data]:
    """My trips (flights and stays), and a booking's and a stay's page with its cancel button."""
    bookings = kit.table(
        "bookings", kit.query("booking_view", cond("user_id", ref("user.id")),
                              order=[("date", "desc"), ("id", "desc")]),
        [("Booking", [kit.link("{row.reference}", "/trips/{row.id}")]),
         ("Route", [kit.text("{row.origin_city} → {row.dest_city}")]), ("Date", [kit.text("{row.date|date}")]),
         (words["passengers"], [kit.text("{row.passengers}")]), ("Status", [kit.text("{row.state}")]),
         ("Total", [kit.text("{row.total|money}")])],
        label=words["trip_flights"], page_size=10, empty="You have no flight bookings yet.")
    stays = kit.table(
        "stays", kit.query("stay_view", cond("user_id", ref("user.id")), order=[("check_in", "desc"), ("id", "desc")]),
        [("Hotel", [kit.link("{row.hotel}", "/stays/{row.id}")]), ("City", [kit.text("{row.city}")]),
         (words["check_in"], [kit.text("{row.check_in|date}")]),
         (words["check_out"], [kit.text("{row.check_out|date}")]),
         ("Status", [kit.text("{row.state}")]), ("Total", [kit.text("{row.total|money}")])],
        label=words["trip_hotels"], page_size=10, empty="You have no hotel reservations yet.")
    if ui.trips_ui == "tabs":
        trips = [kit.tabs("trip_tabs", [(words["trip_flights"], [bookings]), (words["trip_hotels"], [stays])])]
    else:
        trips = [kit.heading(words["trip_flights"]), bookings, kit.heading(words["trip_hotels"]), stays]

    def cancel(label: str, marker: str, arg: str, title: str, done: str) -> Data:
        return kit.form(label, kit.marker_action(marker, {arg: ref("row.id")}, message=done),
                        confirm=kit.confirm(title, words["confirm"], words["keep"]) if ui.confirm_cancel else None)

    back = kit.link(f"Back to {words['trips'].lower()}", "/trips")
    return [
        kit.page("trips", "/trips", words["trips"], [kit.heading(words["trips"], 1), *trips], login=True),
        kit.page("trip", "/trips/{id:int}", "Booking", [kit.record(
            kit.query("booking_view", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
            [kit.heading("Booking {row.reference}", 1), kit.text("{row.origin_city} → {row.dest_city}"),
             kit.text("{row.airline} {row.number}, {row.date|date}: departs {row.depart}, arrives {row.arrive}"),
             kit.text("Passengers: {row.passengers} (lead passenger {row.name}, {row.email})"),
             kit.text("Checked bag: {row.bag_text}"), kit.text("Total paid: {row.total|money}"),
             kit.text("Status: {row.state}"),
             cancel(words["cancel_booking"], "cancel_booking", "booking_id", "Cancel this booking?",
                    "Your booking has been cancelled."), back],
            "This booking does not exist.")], login=True),
        kit.page("stay", "/stays/{id:int}", "Reservation", [kit.record(
            kit.query("stay_view", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
            [kit.heading("{row.hotel}, {row.city}", 1), kit.text("Reservation {row.reference}"),
             kit.text("{row.check_in|date} to {row.check_out|date} ({row.nights} nights, {row.guests} guests)"),
             kit.text("Name: {row.name}"), kit.text("Total: {row.total|money}"), kit.text("Status: {row.state}"),
             cancel(words["cancel_stay"], "cancel_stay", "stay_id", "Cancel this reservation?",
                    "Your reservation has been cancelled."), back],
            "This reservation does not exist.")], login=True),
    ]


def _extra_pages(words: _Words, ui: _Ui) -> list[Data]:
    """The optional pages: deals, destinations, profile."""
    pages = []
    if ui.has_deals:
        pages.append(kit.page("deals", "/deals", words["deals"], [
            kit.heading(words["deals"], 1), kit.text("Our lowest fares of the next two weeks."),
            kit.listing("deals", kit.query("flight_view", cond("date", ref("clock.today"), ">"), cond("seats", 1, ">="),
                                           order=[("price", "asc"), ("id", "asc")], limit=12),
                        [kit.link("{row.origin_city} → {row.dest_city}, {row.date|date}", "/flight/{row.id}"),
                         kit.text("{row.price|money} with {row.airline}")], page_size=6)]))
    if ui.has_destinations:
        city = "code" if ui.city_ui == "select" else "name"
        pages.append(kit.page("destinations", "/destinations", words["destinations"], [
            kit.heading(words["destinations"], 1),
            kit.listing("cities", kit.query("cities", order=[("name", "asc")]),
                        [kit.heading("{row.name}", 3), kit.text("{row.country}, airport {row.code}"),
                         kit.link("Hotels in {row.name}", f"/hotels?city={{row.{city}}}")])]))
    if ui.has_profile:
        pages.append(kit.page("profile", "/profile", words["profile"], [
            kit.heading(words["profile"], 1), kit.text("Name: {user.name}"), kit.text("Email: {user.email}"),
            kit.text("Username: {user.username}")], login=True))
    return pages


# ----------------------------------------------------------------------------- task context


class _Ctx:
    """What the task families need to know about the site they write tasks for."""

    def __init__(self, rng: random.Random, words: _Words, ui: _Ui, data: dict[str, list[Row]]) -> None:
        self.rng, self.words, self.labels, self.ui = rng, words, words.labels, ui
        self.cities = {c["id"]: c for c in data["cities"]}
        self.airlines = {a["id"]: a for a in data["airlines"]}
        self.flights, self.hotels, self.users = data["dated"], data["hotels"], data["users"]
        self.bookings, self.stays = data["bookings"], data["stays"]
        self.flight_by_id = {f["id"]: f for f in self.flights}
        self.hotel_by_id = {h["id"]: h for h in self.hotels}
        self.by_day: dict[tuple[int, int, str], list[Row]] = {}
        for flight in self.flights:
            self.by_day.setdefault((flight["origin_id"], flight["destination_id"], flight["date"]), []).append(flight)
        future = {d.isoformat() for d in FUTURE_DAYS}
        # (origin, destination, day) keys with at least two flights on sale: what most tasks search for
        self.route_days = sorted(k for k, v in self.by_day.items()
                                 if k[2] in future and sum(1 for f in v if f["seats"] >= 1) >= 2)
        self._bookings_of: dict[int, list[Row]] = {}
        for booking in sorted(self.bookings, key=lambda b: (self.flight_by_id[b["flight_id"]]["date"], b["id"]),
                              reverse=True):
            self._bookings_of.setdefault(booking["user_id"], []).append(booking)
        self._stays_of: dict[int, list[Row]] = {}
        for stay in sorted(self.stays, key=lambda s: (s["check_in"], s["id"]), reverse=True):
            self._stays_of.setdefault(stay["user_id"], []).append(stay)
        self.date_style = 0
        self.nav_labels = {self.labels["home"], words["flights"], words["hotels"], words["trips"]}

    # ------------------------------------------------------------------ facts

    def city(self, city_id: int) -> str:
        return self.cities[city_id]["name"]

    def on_sale(self, key: tuple[int, int, str]) -> list[Row]:
        """The flights a search for one route and day lists (with seats for one passenger), in listed order."""
        return sorted((f for f in self.by_day.get(key, []) if f["seats"] >= 1), key=lambda f: (f["depart"], f["id"]))

    def in_city(self, city_id: int, stars: int = 0) -> list[Row]:
        return sorted((h for h in self.hotels if h["city_id"] == city_id and h["stars"] >= stars),
                      key=lambda h: (h["name"], h["id"]))

    def bookings_of(self, user_id: int) -> list[Row]:
        """A user's flight bookings in the order My trips lists them."""
        return self._bookings_of.get(user_id, [])

    def stays_of(self, user_id: int) -> list[Row]:
        """A user's hotel stays in the order My trips lists them."""
        return self._stays_of.get(user_id, [])

    def free_user(self, flights: list[Row]) -> Row:
        """A user with no booking on any of ``flights``."""
        ids = {f["id"] for f in flights}
        taken = {b["user_id"] for b in self.bookings if b["flight_id"] in ids}
        return self.rng.choice([u for u in self.users if u["id"] not in taken])

    # ------------------------------------------------------------------ wording

    def day(self, iso: str) -> str:
        """A date as an instruction says it (in the current task's style)."""
        day = dt.date.fromisoformat(iso)
        style = self.date_style
        if style == 0:
            return f"{MONTHS[day.month - 1]} {day.day}"
        if style == 1:
            return f"{day.day} {MONTHS[day.month - 1]}"
        if style == 2:
            return f"{WEEKDAYS[day.weekday()]}, {MONTHS[day.month - 1]} {day.day}"
        return iso

    # ------------------------------------------------------------------ plans

    def home(self, at_home: bool) -> list[Step]:
        return [] if at_home else [("click", "link", self.labels["home"])]

    def city_step(self, label: str, city_id: int, *, with_code: bool) -> Step:
        city = self.cities[city_id]
        if self.ui.city_ui == "text":
            return ("fill", "textbox", label, city["name"])
        return ("select", label, f"{city['name']} ({city['code']})" if with_code else city["name"])

    def flight_search(self, origin: int, destination: int, day: str, passengers: int = 1, *,
                      stops: int | None = None, airline: str | None = None, at_home: bool = True) -> list[Step]:
        """Plan steps that search flights (and filter them) from wherever the agent is."""
        w, ui = self.words, self.ui
        fields: list[Step] = [self.city_step(w["origin"], origin, with_code=True),
                              self.city_step(w["destination"], destination, with_code=True),
                              ("fill", "date", w["depart_date"], day)]
        if passengers != 1:
            fields.append(("select", w["passengers"], str(passengers)))
        filters: list[Step] = []
        if stops is not None:
            option = "Nonstop only" if stops == 0 else "At most 1 stop"
            filters.append(("select", w["stops"], str(stops)) if ui.stops_ui == "select"
                           else ("check", "radio", option))
        if airline is not None:
            filters.append(("select", w["airline"], airline))
        submit: Step = ("click", "button", w["search_flights"])
        if ui.search_ui == "pages":
            opener = [("click", "button", w["refine"])] if ui.refine_ui == "dialog" else []
            return [("click", "link", w["flights"]), *opener, *fields, *filters, submit]
        plan = self.home(at_home) + fields + [submit]
        if filters:
            plan += ([("click", "button", w["refine"])] if ui.refine_ui == "dialog" else []) + filters + [submit]
        return plan

    def hotel_search(self, city: int, check_in: str | None = None, check_out: str | None = None,
                     guests: int | None = None, *, stars: int | None = None, at_home: bool = True) -> list[Step]:
        """Plan steps that search hotels in a city (for dates and guests, with a star filter)."""
        w, ui = self.words, self.ui
        fields: list[Step] = [self.city_step(w["city"], city, with_code=False)]
        if check_in is not None and check_out is not None:
            fields += [("fill", "date", w["check_in"], check_in), ("fill", "date", w["check_out"], check_out)]
        default_guests = 1 if ui.search_ui == "pages" else 2
        if guests is not None and guests != default_guests:
            fields.append(("select", w["guests"], str(guests)))
        filters: list[Step] = [("select", w["min_stars"], str(stars))] if stars else []
        submit: Step = ("click", "button", w["search_hotels"])
        if ui.search_ui == "pages":
            opener = [("click", "button", w["refine"])] if ui.refine_ui == "dialog" else []
            return [("click", "link", w["hotels"]), *opener, *fields, *filters, submit]
        plan = self.home(at_home) + fields + [submit]
        if filters:
            plan += ([("click", "button", w["refine"])] if ui.refine_ui == "dialog" else []) + filters + [submit]
        return plan

    def flight_link(self, flight: Row) -> Step:
        if self.ui.flight_kind == "list":
            return ("click", "link", f"{flight['depart']} – {flight['arrive']}")
        return ("click", "link", flight["number"])

    def book(self, *, name: str | None = None, email: str | None = None, bag: bool = False) -> list[Step]:
        """Plan steps on a flight's page that fill the passenger form and book."""
        w = self.words
        plan: list[Step] = []
        if name is not None:
            plan.append(("fill", "textbox", w["lead"], name))
        if email is not None:
            plan.append(("fill", "textbox", w["email"], email))
        if bag:
            plan.append(("check", "checkbox", w["bag"]))
        plan.append(("click", "button", w["book_flight"]))
        return plan + ([("click", "button", self.labels["confirm"])] if self.ui.confirm_book else [])

    def reserve(self) -> list[Step]:
        plan: list[Step] = [("click", "button", self.words["book_hotel"])]
        return plan + ([("click", "button", self.labels["confirm"])] if self.ui.confirm_book else [])

    def cancel(self, label: str) -> list[Step]:
        plan: list[Step] = [("click", "button", label)]
        return plan + ([("click", "button", self.labels["confirm"])] if self.ui.confirm_cancel else [])

    def cost(self, plan: list[Step]) -> int:
        """An upper bound on the certificate length of ``plan`` (widgets it may have to open)."""
        w, ui = self.words, self.ui
        filters = [("select", w["stops"], "0"), ("select", w["stops"], "1"), ("check", "radio", "Nonstop only"),
                   ("check", "radio", "At most 1 stop")] + [("select", w["min_stars"], str(n)) for n in (3, 4, 5)]
        filters += [("select", w["airline"], a["name"]) for a in self.airlines.values()]
        extra = 0
        for step in plan:
            if step[:2] == ("click", "link") and step[2] in self.nav_labels and ui.nav_style == "menu":
                extra += 1
            elif step == ("click", "link", self.labels["login"]) and ui.nav_style in ("topbar", "split"):
                extra += 1
            elif step in (("click", "button", w["book_flight"]), ("click", "button", w["book_hotel"])):
                extra += ui.booking_ui != "plain"
            elif step == ("click", "button", w["search_hotels"]):
                extra += ui.search_ui == "tabs"
            elif step in filters and ui.refine_ui == "collapsible" and ui.search_ui != "pages":
                extra += 1
        return len(plan) + extra


def _as_user(ctx: _Ctx, user: Row, phrasings: list[str], slots: dict[str, Any], plan: list[Step], *,
             chance: float = 0.6) -> tuple[list[str], dict[str, Any], list[Step], dict[str, Any]]:
    """Who does the task (see :func:`veriweb.generate.tasks.as_user`); a log-in must fit the budget."""
    return as_user(ctx, user, phrasings, slots, plan, chance=chance, fits=lambda p: ctx.cost(p) <= MAX_STEPS)


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _travellers(n: int) -> str:
    return f"{n} passenger{'s' if n > 1 else ''}"


def _flight_id(**by: Any) -> Data:
    """The id of the flight an instruction names, looked up at judge time (``by``: view column to slot)."""
    return kit.scalar("flight_view", "id", *(cond(column, ref(f"slot.{slot}")) for column, slot in by.items()))


def _route_slots(ctx: _Ctx, origin: int, destination: int, day: str) -> dict[str, Any]:
    """The slots naming a route and a day: the cities, the day as the instruction says it, and as ISO."""
    return {"origin": ctx.city(origin), "destination": ctx.city(destination), "date": ctx.day(day), "day": day}


def _route(origin: str = "origin", destination: str = "destination", day: str = "day") -> dict[str, str]:
    return {"origin_city": origin, "dest_city": destination, "date": day}


def _unique(rows: list[Row], key: Callable[[Row], Any]) -> Row | None:
    """The row with the smallest key, or ``None`` if another row ties it."""
    if not rows:
        return None
    best = min(rows, key=key)
    return best if sum(1 for r in rows if key(r) == key(best)) == 1 else None


# ----------------------------------------------------------------------------- task families


def _tasks(ctx: _Ctx, start_pages: list[str], site_name: str) -> list[TaskDraft]:
    rng = ctx.rng
    families: list[Callable[[_Ctx], TaskDraft | None]] = [
        _navigate_flight, _navigate_hotel, rng.choice([_fare_lookup, _cheapest_airline]), _count_flights,
        rng.choice([_trip_date, _stays_total]), _hotel_list, rng.choice([_book_flight, _book_for_someone]),
        _round_trip, _hotel_budget, rng.choice([_cancel_flight, _cancel_stay]), _rebook]
    out = []
    for family in families + [_infeasible]:
        ctx.date_style = rng.randrange(4)
        task = family(ctx)
        if task is not None:
            out.append(task)
    out = with_login(ctx, out, ctx.users, chance=0.35, fits=lambda plan: ctx.cost(plan) <= MAX_STEPS)
    home = [("click", "link", ctx.words["home"]), ("click", "link", site_name), ("goto", "/")]
    return start_elsewhere(ctx, out, start_pages, home, chance=0.4, fits=lambda plan: ctx.cost(plan) <= MAX_STEPS)


def _navigate_flight(ctx: _Ctx) -> TaskDraft | None:
    """navigate, sort- and filter-dependent: the cheapest, fastest, first or last flight of a day."""
    rng, ui = ctx.rng, ctx.ui
    criteria = {"cheapest": ("price_asc", lambda f: (f["price"],), [("price", "asc")]),
                "fastest": ("duration_asc", lambda f: (f["duration"],), [("duration", "asc")]),
                "first": ("depart_asc", lambda f: (f["depart"],), [("depart", "asc")]),
                "last": ("depart_desc", lambda f: (-int(f["depart"].replace(":", "")),), [("depart", "desc")]),
                "cheapest_nonstop": ("price_asc", lambda f: (f["price"],), [("price", "asc")])}
    phrasings = {
        "cheapest": ["Open the cheapest flight from {origin} to {destination} on {date}.",
                     "Find the lowest fare from {origin} to {destination} on {date} and open that flight.",
                     "Show me the cheapest {origin} to {destination} flight on {date}."],
        "fastest": ["Open the shortest flight from {origin} to {destination} on {date}.",
                    "Which flight from {origin} to {destination} on {date} takes the least time? Open it.",
                    "Find the quickest way to fly from {origin} to {destination} on {date} and open that flight."],
        "first": ["Open the first flight of the day from {origin} to {destination} on {date}.",
                  "Find the earliest departure from {origin} to {destination} on {date} and open it.",
                  "Show me the earliest {origin}–{destination} flight on {date}."],
        "last": ["Open the last flight from {origin} to {destination} on {date}.",
                 "Find the latest departure from {origin} to {destination} on {date} and open its page.",
                 "Open the latest flight of the day from {origin} to {destination} on {date}."],
        "cheapest_nonstop": ["Open the cheapest nonstop flight from {origin} to {destination} on {date}.",
                             "Find the lowest fare for a direct flight from {origin} to {destination} on {date} "
                             "and open it.", "Show me the cheapest {origin}–{destination} flight on {date} that "
                             "does not stop on the way."]}
    for _ in range(30):
        name = rng.choice(sorted(criteria))
        sort_key, key, order = criteria[name]
        origin, destination, day = rng.choice(ctx.route_days)
        listed = ctx.on_sale((origin, destination, day))
        nonstop = name == "cheapest_nonstop"
        pool = [f for f in listed if f["stops"] == 0] if nonstop else listed
        target = _unique(pool, key)
        if target is None or (nonstop and len(pool) == len(listed)):
            continue
        plan = ctx.flight_search(origin, destination, day, stops=0 if nonstop else None)
        sort_label = ui.flight_sort(sort_key)
        if sort_label is not None:
            plan.append(("click", "link", sort_label))
        plan.append(ctx.flight_link(target))
        where = [cond("origin_city", ref("slot.origin")), cond("dest_city", ref("slot.destination")),
                 cond("date", ref("slot.day")), cond("seats", 1, ">=")] + ([cond("stops", 0)] if nonstop else [])
        goal = kit.on_page("flight", id=kit.scalar("flight_view", "id", *where, order=order + [("id", "asc")]))
        return make_task(ctx, "open_flight", "navigate_sorted", "navigate", phrasings[name],
                     _route_slots(ctx, origin, destination, day),
                     plan, goal=[goal], progress=[{"description": "on the flight's page", "predicate": goal}])
    return None


def _navigate_hotel(ctx: _Ctx) -> TaskDraft | None:
    """navigate, sort- and filter-dependent: the best-rated hotel of a city, or the cheapest with enough stars."""
    rng, ui = ctx.rng, ctx.ui
    for _ in range(30):
        city = rng.choice(sorted(ctx.cities))
        best_rated = rng.random() < 0.5
        stars = 0 if best_rated else rng.choice([3, 4])
        pool = ctx.in_city(city, stars)
        key = (lambda h: (-h["rating"],)) if best_rated else (lambda h: (h["price"],))
        target = _unique(pool, key)
        if target is None:
            continue
        plan = ctx.hotel_search(city, stars=stars or None)
        sort_label = ui.hotel_sort("rating_desc" if best_rated else "price_asc")
        if sort_label is not None:
            plan += [("click", "link", sort_label), ("click", "link", target["name"])]
        else:
            plan += next_pages(pool.index(target), ui.hotel_page_size) + [("click", "link", target["name"])]
        if ctx.cost(plan) > MAX_STEPS:
            continue
        where = [cond("city", ref("slot.city"))] + ([cond("stars", ref("slot.stars"), ">=")] if stars else [])
        order = [("rating", "desc"), ("id", "asc")] if best_rated else [("price", "asc"), ("id", "asc")]
        goal = kit.on_page("hotel", id=kit.scalar("hotel_view", "id", *where, order=order))
        phrasings = (["Open the page of the best-rated hotel in {city}.",
                      "Which hotel in {city} has the highest guest rating? Open its page.",
                      "Show me the top-rated place to stay in {city}."] if best_rated else
                     ["Open the cheapest hotel in {city} with at least {stars} stars.",
                      "Find the lowest nightly rate among {stars}-star-or-better hotels in {city} and open that hotel.",
                      "Show me the least expensive hotel in {city} rated {stars} stars or more."])
        slots: dict[str, Any] = {"city": ctx.city(city)} | ({"stars": stars} if stars else {})
        return make_task(ctx, "open_hotel", "navigate_filtered", "navigate", phrasings, slots, plan, goal=[goal],
                     progress=[{"description": "on the hotel's page", "predicate": goal}])
    return None


def _fare_lookup(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, lookup (currency): the fare of one flight named by route, day and time."""
    origin, destination, day = ctx.rng.choice(ctx.route_days)
    flight = ctx.rng.choice(ctx.on_sale((origin, destination, day)))
    plan = ctx.flight_search(origin, destination, day)
    if ctx.rng.random() < 0.5:
        plan.append(ctx.flight_link(flight))
    return make_task(ctx, "fare_lookup", "retrieve_lookup", "retrieve",
                 ["How much does the {time} flight from {origin} to {destination} on {date} cost per passenger?",
                  "What is the fare of the {airline} flight leaving {origin} for {destination} at {time} on {date}?",
                  "Tell me the price of one seat on the {time} {origin}–{destination} flight on {date}."],
                 {**_route_slots(ctx, origin, destination, day),
                  "time": flight["depart"], "airline": ctx.airlines[flight["airline_id"]]["name"]},
                 plan + [("send", f"It costs {_money(flight['price'])} per passenger.")],
                 answer={"type": "currency", "value": kit.scalar(
                     "flight_view", "price", cond("origin_city", ref("slot.origin")),
                     cond("dest_city", ref("slot.destination")), cond("date", ref("slot.day")),
                     cond("depart", ref("slot.time")))})


def _cheapest_airline(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, extreme (text): the airline with the cheapest flight of a day."""
    for _ in range(30):
        origin, destination, day = ctx.rng.choice(ctx.route_days)
        listed = ctx.on_sale((origin, destination, day))
        best = _unique(listed, lambda f: f["price"])
        if best is None or len({f["airline_id"] for f in listed}) < 2:
            continue
        airline = ctx.airlines[best["airline_id"]]["name"]
        plan = ctx.flight_search(origin, destination, day) + [("click", "link", ctx.ui.flight_sort("price_asc"))]
        return make_task(ctx, "cheapest_airline", "retrieve_extreme", "retrieve",
                     ["Which airline has the cheapest flight from {origin} to {destination} on {date}?",
                      "On {date}, which carrier offers the lowest fare from {origin} to {destination}?",
                      "Name the airline of the cheapest {origin}–{destination} flight on {date}."],
                     _route_slots(ctx, origin, destination, day),
                     plan + [("send", airline)],
                     answer={"type": "text", "value": kit.scalar(
                         "flight_view", "airline", cond("origin_city", ref("slot.origin")),
                         cond("dest_city", ref("slot.destination")), cond("date", ref("slot.day")),
                         cond("seats", 1, ">="), order=[("price", "asc"), ("id", "asc")]),
                         "candidates": kit.scalar("airlines", "name")["query"]})
    return None


def _count_flights(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, count (number), filter-dependent: flights of a day that are nonstop, or of one airline."""
    for _ in range(30):
        origin, destination, day = ctx.rng.choice(ctx.route_days)
        everything = ctx.by_day[(origin, destination, day)]
        if any(f["seats"] < 1 for f in everything):
            continue
        by_airline = ctx.rng.random() < 0.4
        if by_airline:
            airline = ctx.airlines[ctx.rng.choice(everything)["airline_id"]]
            n = sum(1 for f in everything if f["airline_id"] == airline["id"])
            plan = ctx.flight_search(origin, destination, day, airline=airline["name"])
            extra = {"airline": airline["name"]}
            where = [cond("airline", ref("slot.airline"))]
            phrasings = ["How many {airline} flights go from {origin} to {destination} on {date}?",
                         "Count the flights {airline} operates from {origin} to {destination} on {date}.",
                         "On {date}, how many flights does {airline} have from {origin} to {destination}?"]
        else:
            stops = ctx.rng.choice([0, 1])
            n = sum(1 for f in everything if f["stops"] <= stops)
            if n == 0 or n == len(everything):
                continue
            plan = ctx.flight_search(origin, destination, day, stops=stops)
            extra = {"stops": stops}
            where = [cond("stops", ref("slot.stops"), "<=")]
            phrasings = (["How many nonstop flights are there from {origin} to {destination} on {date}?",
                          "Count the direct flights from {origin} to {destination} on {date}.",
                          "On {date}, how many flights from {origin} to {destination} are nonstop?"] if stops == 0 else
                         ["How many flights from {origin} to {destination} on {date} have at most one stop?",
                          "Count the flights from {origin} to {destination} on {date} with no more than one stop.",
                          "How many {origin}–{destination} flights on {date} make one stop or none?"])
        return make_task(ctx, "count_flights", "retrieve_count", "retrieve", phrasings,
                     {**_route_slots(ctx, origin, destination, day), **extra}, plan + [("send", str(n))],
                     answer={"type": "number", "value": kit.scalar(
                         "flight_view", "*", cond("origin_city", ref("slot.origin")),
                         cond("dest_city", ref("slot.destination")), cond("date", ref("slot.day")),
                         cond("seats", 1, ">="), *where, agg="count")})
    return None


def _trip_date(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, lookup (date), login-gated: when the user's flight to a city leaves."""
    rng = ctx.rng
    for _ in range(40):
        user = rng.choice(ctx.users)
        mine = ctx.bookings_of(user["id"])
        upcoming = [b for b in mine
                    if b["status"] == "confirmed" and ctx.flight_by_id[b["flight_id"]]["date"] > TODAY.isoformat()]
        if not upcoming:
            continue
        booking = rng.choice(upcoming)
        flight = ctx.flight_by_id[booking["flight_id"]]
        city = flight["destination_id"]
        if sum(1 for b in mine if ctx.flight_by_id[b["flight_id"]]["destination_id"] == city) != 1:
            continue
        day = dt.date.fromisoformat(flight["date"])
        to_trips = ctx.rng.choice([("click", "link", ctx.words["trips"]), ("goto", "/trips")])
        plan = [to_trips, *next_pages(mine.index(booking), 10)]
        if ctx.rng.random() < 0.5:  # read the date in the list, or on the booking's own page
            plan.append(("click", "link", booking["reference"]))
        plan.append(("send", f"{MONTHS[day.month - 1]} {day.day}, {day.year}"))
        phrasings, slots, plan, who = _as_user(ctx, user, [
            "When does your flight to {city} leave?", "On what date do you fly to {city}?",
            "I forgot the date of my flight to {city}. What is it?"], {"city": ctx.city(city)}, plan)
        return make_task(ctx, "trip_date", "retrieve_date", "retrieve", phrasings, slots, plan, **who,
                     answer={"type": "date", "value": kit.scalar(
                         "booking_view", "date", cond("user_id", ref("user.id")), cond("dest_city", ref("slot.city")),
                         cond("status", "confirmed"))})
    return None


def _stays_total(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, sum (currency), login-gated: what the user's upcoming hotel stays, or upcoming
    flight bookings, cost together (My trips, reached by its link or its address)."""
    rng = ctx.rng
    flights = rng.random() < 0.4
    candidates = []
    for user in ctx.users:
        if flights:
            mine = ctx.bookings_of(user["id"])
            upcoming = [b for b in mine if b["status"] == "confirmed"
                        and ctx.flight_by_id[b["flight_id"]]["date"] > TODAY.isoformat()]
        else:
            mine = ctx.stays_of(user["id"])
            upcoming = [s for s in mine if s["status"] == "confirmed" and s["check_in"] > TODAY.isoformat()]
        if 2 <= len(upcoming) <= 4 and len(mine) <= 10:
            candidates.append((user, upcoming))
    if not candidates:
        return None
    user, upcoming = rng.choice(candidates)
    plan: list[Step] = [rng.choice([("click", "link", ctx.words["trips"]), ("goto", "/trips")])]
    if ctx.ui.trips_ui == "tabs" and not flights:
        plan.append(("click", "tab", ctx.words["trip_hotels"]))
    plan.append(("send", _money(sum(s["total"] for s in upcoming))))
    if flights:
        phrasings, slots, plan, who = _as_user(ctx, user, [
            "How much did you pay in total for your upcoming flights?",
            "What do all your upcoming flight bookings cost together?",
            "Add up what I paid for the flights I have coming up."], {}, plan)
        return make_task(ctx, "flights_total", "retrieve_sum", "retrieve", phrasings, slots, plan, **who,
                         answer={"type": "currency", "value": kit.scalar(
                             "booking_view", "total", cond("user_id", ref("user.id")), cond("status", "confirmed"),
                             cond("date", ref("clock.today"), ">"), agg="sum")})
    phrasings, slots, plan, who = _as_user(ctx, user, [
        "How much do your upcoming hotel stays cost in total?",
        "What is the total price of all your upcoming hotel reservations?",
        "Add up the cost of the hotel stays you have coming up. What do they come to?"], {}, plan)
    return make_task(ctx, "stays_total", "retrieve_sum", "retrieve", phrasings, slots, plan, **who,
                 answer={"type": "currency", "value": kit.scalar(
                     "stay_view", "total", cond("user_id", ref("user.id")), cond("status", "confirmed"),
                     cond("check_in", ref("clock.today"), ">"), agg="sum")})


def _hotel_list(ctx: _Ctx) -> TaskDraft | None:
    """retrieve, list, filter-dependent: the hotels of a city with at least some stars."""
    for _ in range(30):
        city = ctx.rng.choice(sorted(ctx.cities))
        stars = ctx.rng.choice([4, 5])
        pool = ctx.in_city(city, stars)
        if not 2 <= len(pool) <= 6:
            continue
        plan = ctx.hotel_search(city, stars=stars) + all_pages(len(pool), ctx.ui.hotel_page_size)
        return make_task(ctx, "hotel_list", "retrieve_list", "retrieve",
                     ["List every hotel in {city} with at least {stars} stars.",
                      "Which hotels in {city} have {stars} stars or more?",
                      "Name all the {stars}-star-or-better hotels in {city}."] if stars < 5 else
                     ["List every 5-star hotel in {city}.", "Which hotels in {city} have five stars?",
                      "Name all the 5-star hotels in {city}."],
                     {"city": ctx.city(city), "stars": stars}, plan + [("send", ", ".join(h["name"] for h in pool))],
                     answer={"type": "list", "list_query": kit.scalar(
                         "hotel_view", "name", cond("city", ref("slot.city")), cond("stars", ref("slot.stars"), ">="),
                         order=[("name", "asc")])["query"]})
    return None


def _booking_goal(flight: Data, *extra: Data) -> Data:
    return kit.exists("bookings", cond("user_id", ref("user.id")), cond("flight_id", flight),
                      cond("status", "confirmed"), *extra)


def _booking_footprint(*flights: Data) -> list[Data]:
    out: list[Data] = []
    for flight in flights:
        out += [{"table": "bookings", "where": [cond("user_id", ref("user.id")), cond("flight_id", flight)],
                 "ops": ["insert"]},
                {"table": "flights", "where": [cond("id", flight)], "columns": ["seats"], "ops": ["update"]}]
    return out


def _book_flight(ctx: _Ctx) -> TaskDraft | None:
    """mutate, single write (login-gated either way): book a named flight for some passengers."""
    rng = ctx.rng
    for _ in range(30):
        origin, destination, day = rng.choice(ctx.route_days)
        passengers = rng.choices([1, 2, 3], [50, 35, 15])[0]
        flights = [f for f in ctx.on_sale((origin, destination, day)) if f["seats"] >= passengers + 1]
        if not flights:
            continue
        flight = rng.choice(flights)
        user = ctx.free_user([flight])
        plan = ctx.flight_search(origin, destination, day, passengers) + [ctx.flight_link(flight)] + ctx.book()
        phrasings, slots, plan, who = _as_user(ctx, user, [
            "Book the {time} flight from {origin} to {destination} on {date} for {travellers}.",
            "Reserve seats for {travellers} on the {airline} flight from {origin} to {destination} leaving at {time} "
            "on {date}.", "I need seats for {travellers} on the {time} {origin}–{destination} flight on {date}. Book "
            "them."],
            {**_route_slots(ctx, origin, destination, day),
             "time": flight["depart"], "airline": ctx.airlines[flight["airline_id"]]["name"],
             "travellers": _travellers(passengers), "passengers": passengers}, plan)
        target = _flight_id(**_route(), depart="time", airline="airline")  # the airline is stated: checked too
        return make_task(ctx, "book_flight", "single_write", "mutate", phrasings, slots, plan, **who,
                     goal=[_booking_goal(target, cond("passengers", ref("slot.passengers")))],
                     progress=[{"description": "a seat on the flight is booked", "predicate": _booking_goal(target)}],
                     constraints=[{"description": "booked for the wrong number of passengers", "predicate": kit.exists(
                         "bookings", cond("user_id", ref("user.id")), cond("flight_id", target),
                         cond("passengers", ref("slot.passengers"), "!="))}],
                     footprint=_booking_footprint(target))
    return None


def _book_for_someone(ctx: _Ctx) -> TaskDraft | None:
    """mutate, form write: the cheapest flight of a day for another traveller, with a bag."""
    rng = ctx.rng
    for _ in range(30):
        origin, destination, day = rng.choice(ctx.route_days)
        listed = ctx.on_sale((origin, destination, day))
        cheapest = _unique(listed, lambda f: f["price"])
        if cheapest is None or cheapest["seats"] < 3:
            continue
        user = ctx.free_user([cheapest])
        first, last = person(rng)
        email = f"{first.lower()}.{last.lower()}@post.example"
        plan = (ctx.flight_search(origin, destination, day) + [("click", "link", ctx.ui.flight_sort("price_asc")),
                                                               ctx.flight_link(cheapest)]
                + ctx.book(name=f"{first} {last}", email=email, bag=True))
        phrasings, slots, plan, who = _as_user(ctx, user, [
            "Book the cheapest flight from {origin} to {destination} on {date} for {traveller} ({email}), with a "
            "checked bag.",
            "{traveller} needs to get from {origin} to {destination} on {date}: book them the lowest fare, with one "
            "checked bag, contact email {email}.",
            "Buy one seat on the cheapest {origin}–{destination} flight on {date} for {traveller}, email {email}, "
            "and add a checked bag."],
            {**_route_slots(ctx, origin, destination, day),
             "traveller": f"{first} {last}", "email": email}, plan, chance=0.4)
        target = kit.scalar("flight_view", "id", cond("origin_city", ref("slot.origin")),
                            cond("dest_city", ref("slot.destination")), cond("date", ref("slot.day")),
                            cond("seats", 1, ">="), order=[("price", "asc"), ("id", "asc")])
        return make_task(ctx, "book_for_someone", "form_write", "mutate", phrasings, slots, plan, **who,
                     goal=[_booking_goal(target, cond("name", ref("slot.traveller")), cond("email", ref("slot.email")),
                                         cond("bag", True), cond("passengers", 1))],
                     progress=[{"description": "the cheapest flight is booked", "predicate": _booking_goal(target)}],
                     constraints=[{"description": "booked without the checked bag", "predicate": kit.exists(
                         "bookings", cond("user_id", ref("user.id")), cond("flight_id", target), cond("bag", False))}],
                     footprint=_booking_footprint(target))
    return None


def _round_trip(ctx: _Ctx) -> TaskDraft | None:
    """mutate, several entities: an outbound and a return flight in one task."""
    rng, ui = ctx.rng, ctx.ui
    for _ in range(40):
        origin, destination, day = rng.choice(ctx.route_days)
        back_day = (dt.date.fromisoformat(day) + dt.timedelta(days=rng.randint(2, 7))).isoformat()
        outs, backs = ctx.on_sale((origin, destination, day)), ctx.on_sale((destination, origin, back_day))
        out_f, back_f = _unique(outs, lambda f: f["price"]), _unique(backs, lambda f: f["price"])
        if out_f is None or back_f is None or out_f["seats"] < 2 or back_f["seats"] < 2:
            continue
        user = ctx.free_user([out_f, back_f])
        sort = [("click", "link", ui.flight_sort("price_asc"))]
        plan = (ctx.flight_search(origin, destination, day) + sort + [ctx.flight_link(out_f)] + ctx.book()
                + ctx.flight_search(destination, origin, back_day, at_home=False) + sort + [ctx.flight_link(back_f)]
                + ctx.book())
        slots = {**_route_slots(ctx, origin, destination, day),
                 "return_date": ctx.day(back_day), "return_day": back_day}
        if rng.random() < 0.6 and ctx.cost(plan) <= MAX_STEPS:  # the cheapest each way: sort twice
            phrasings = ["Book a round trip from {origin} to {destination}: the cheapest flight out on {date} and the "
                         "cheapest flight back on {return_date}, one passenger.",
                         "I'm going from {origin} to {destination} on {date} and coming back on {return_date}. Book "
                         "the cheapest flight each way for one person.",
                         "Fly me from {origin} to {destination} on {date} and back on {return_date}: book the lowest "
                         "fare in each direction, one passenger."]
            cheapest = dict(order=[("price", "asc"), ("id", "asc")])
            out_id = kit.scalar("flight_view", "id", cond("origin_city", ref("slot.origin")),
                                cond("dest_city", ref("slot.destination")), cond("date", ref("slot.day")),
                                cond("seats", 1, ">="), **cheapest)
            back_id = kit.scalar("flight_view", "id", cond("origin_city", ref("slot.destination")),
                                 cond("dest_city", ref("slot.origin")), cond("date", ref("slot.return_day")),
                                 cond("seats", 1, ">="), **cheapest)
        else:
            plan = [s for s in plan if s not in sort]  # named by their times: no sorting needed
            if ctx.cost(plan) > MAX_STEPS:
                return None
            slots |= {"out_time": out_f["depart"], "back_time": back_f["depart"]}
            phrasings = ["Book the {out_time} flight from {origin} to {destination} on {date} and the {back_time} "
                         "flight back on {return_date}, one passenger.",
                         "Book me a round trip, one passenger: {origin} to {destination} at {out_time} on {date}, "
                         "returning at {back_time} on {return_date}.",
                         "Book two flights for one person: {origin} to {destination} at {out_time} on {date}, and "
                         "back at {back_time} on {return_date}."]
            out_id = _flight_id(**_route(), depart="out_time")
            back_id = _flight_id(**_route("destination", "origin", "return_day"), depart="back_time")
        return make_task(ctx, "round_trip", "multi_entity", "mutate", phrasings, slots, plan,
                     user=user["username"], start_logged_in=True, credentials="profile",
                     goal=[_booking_goal(out_id, cond("passengers", 1)), _booking_goal(back_id, cond("passengers", 1))],
                     progress=[{"description": "the outbound flight is booked", "predicate": _booking_goal(out_id)},
                               {"description": "the return flight is booked", "predicate": _booking_goal(back_id)}],
                     footprint=_booking_footprint(out_id, back_id))
    return None


def _hotel_budget(ctx: _Ctx) -> TaskDraft | None:
    """mutate under a constraint: a room with enough stars, for given dates, within a budget."""
    rng, ui = ctx.rng, ctx.ui
    for _ in range(40):
        city = rng.choice(sorted(ctx.cities))
        stars = rng.choice([3, 4])
        pool = ctx.in_city(city, stars)
        cheapest = _unique(pool, lambda h: h["price"])
        if cheapest is None or len(pool) < 2:
            continue
        check_in = rng.choice(FUTURE_DAYS[:10])
        nights = rng.randint(2, 5)
        check_out = check_in + dt.timedelta(days=nights)
        ci, co = check_in.isoformat(), check_out.isoformat()
        guests = rng.choice([1, 2, 2, 3])
        budget = cheapest["price"] * nights + rng.choice([0, 2500, 5000])
        if all(h["price"] * nights <= budget for h in pool):
            continue
        busy = {s["user_id"] for s in ctx.stays if s["check_in"] < co and ci < s["check_out"]}
        user = rng.choice([u for u in ctx.users if u["id"] not in busy])
        plan = (ctx.hotel_search(city, ci, co, guests, stars=stars)
                + [("click", "link", ui.hotel_sort("price_asc")), ("click", "link", cheapest["name"])] + ctx.reserve())
        phrasings, slots, plan, who = _as_user(ctx, user, [
            "Book a hotel in {city} with at least {stars} stars for {people}, checking in on {check_in} and "
            "out on {check_out}. Spend no more than {budget} in total.",
            "Find me a room in {city}, {stars} stars or better, from {check_in} to {check_out} for {people}, "
            "and book it. My budget for the whole stay is {budget}.",
            "Reserve a {stars}-star-or-better hotel in {city} for {people}, {check_in} to {check_out}, "
            "keeping the total at or under {budget}."],
            {"city": ctx.city(city), "stars": stars, "people": f"{guests} guest{'s' if guests > 1 else ''}",
             "guests": guests, "check_in": ctx.day(ci), "check_out": ctx.day(co),
             "in_day": ci, "out_day": co, "budget": _money(budget)}, plan, chance=0.5)
        booked = ("SELECT EXISTS (SELECT 1 FROM stay_view WHERE user_id = :user_id AND city = :city AND "
                  "stars >= :stars AND check_in = :ci AND check_out = :co AND status = 'confirmed'{})")
        params = dict(city=ref("slot.city"), stars=ref("slot.stars"), ci=ref("slot.in_day"), co=ref("slot.out_day"))
        return make_task(ctx, "hotel_budget", "write_constraint", "mutate", phrasings, slots, plan, **who,
                     goal=[kit.sql(booked.format(" AND guests = :guests AND total <= :budget"),
                                   guests=ref("slot.guests"), budget=budget, **params)],
                     progress=[{"description": "a room in the city is booked for those dates",
                                "predicate": kit.sql(booked.format(""), **params)}],
                     constraints=[{"description": "a stay costs more than the budget", "predicate": kit.exists(
                         "stays", cond("user_id", ref("user.id")), cond("check_in", ref("slot.in_day")),
                         cond("total", budget, ">"))}],
                     footprint=[{"table": "stays", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]}])
    return None


def _one_trip_to(ctx: _Ctx, user: Row) -> list[tuple[Row, Row]]:
    """The user's upcoming confirmed bookings that are the user's only booking to their destination."""
    mine = ctx.bookings_of(user["id"])
    out = []
    for booking in mine:
        flight = ctx.flight_by_id[booking["flight_id"]]
        if booking["status"] != "confirmed" or flight["date"] <= TODAY.isoformat():
            continue
        if sum(1 for b in mine if ctx.flight_by_id[b["flight_id"]]["destination_id"] == flight["destination_id"]) == 1:
            out.append((booking, flight))
    return out


def _cancel_flight(ctx: _Ctx) -> TaskDraft | None:
    """mutate, multi-step: cancel the user's upcoming flight to a city (a confirmation on some sites)."""
    rng = ctx.rng
    candidates = [(u, b, f) for u in ctx.users for b, f in _one_trip_to(ctx, u)]
    if not candidates:
        return None
    user, booking, flight = rng.choice(candidates)
    position = ctx.bookings_of(user["id"]).index(booking)
    plan = [("click", "link", ctx.words["trips"]), *next_pages(position, 10), ("click", "link", booking["reference"]),
            *ctx.cancel(ctx.words["cancel_booking"])]
    phrasings, slots, plan, who = _as_user(ctx, user, [
        "Cancel your upcoming flight to {city}.", "My plans changed: please cancel my flight to {city}.",
        "I no longer need my booking to {city}. Cancel it."], {"city": ctx.city(flight["destination_id"])}, plan)
    mine = [cond("user_id", ref("user.id")), cond("dest_city", ref("slot.city"))]
    booking_id = kit.scalar("booking_view", "id", *mine)
    return make_task(ctx, "cancel_flight", "multi_step_write", "mutate", phrasings, slots, plan, **who,
                 goal=[kit.exists("booking_view", *mine, cond("status", "cancelled")),
                       kit.exists("booking_view", *mine, cond("status", "confirmed"), negate=True)],
                 progress=[{"description": "the booking is cancelled",
                            "predicate": kit.exists("booking_view", *mine, cond("status", "cancelled"))}],
                 footprint=[{"table": "bookings", "where": [cond("id", booking_id)], "columns": ["status"],
                             "ops": ["update"]},
                            {"table": "flights", "where": [cond("id", kit.scalar("booking_view", "flight_id", *mine))],
                             "columns": ["seats"], "ops": ["update"]}])


def _cancel_stay(ctx: _Ctx) -> TaskDraft | None:
    """mutate, login-gated with credentials in the instruction: cancel a hotel reservation, or a
    flight booking (My trips reached by its link or its address)."""
    rng = ctx.rng
    candidates = []
    for user in ctx.users:
        mine = ctx.stays_of(user["id"])
        for stay in mine[:10]:
            same = sum(1 for s in mine if s["hotel_id"] == stay["hotel_id"])
            if stay["status"] == "confirmed" and stay["check_in"] > TODAY.isoformat() and same == 1:
                candidates.append((user, stay))
    if not candidates:
        return None
    trips = [(u, b, f) for u in ctx.users for b, f in _one_trip_to(ctx, u)]
    to_trips = rng.choice([("click", "link", ctx.words["trips"]), ("goto", "/trips")])
    if trips and rng.random() < 0.4:
        user, booking, flight = rng.choice(trips)
        position = ctx.bookings_of(user["id"]).index(booking)
        plan = (login_plan(ctx.labels, user["username"], user["password"], via_link=rng.random() < 0.5)
                + [to_trips, *next_pages(position, 10), ("click", "link", booking["reference"]),
                   *ctx.cancel(ctx.words["cancel_booking"])])
        if ctx.cost(plan) <= MAX_STEPS:
            mine = [cond("user_id", ref("user.id")), cond("dest_city", ref("slot.city"))]
            cancelled = kit.exists("booking_view", *mine, cond("status", "cancelled"))
            return make_task(ctx, "cancel_flight_login", "login_write", "mutate",
                             ["Log in as {username} (password: {password}) and cancel your flight to {city}.",
                              "Sign in with {username} / {password}, then cancel the booking for the flight to {city}."],
                             {"username": user["username"], "password": user["password"],
                              "city": ctx.city(flight["destination_id"])}, plan, user=user["username"],
                             credentials="instruction", goal=[cancelled],
                             progress=[{"description": "the booking is cancelled", "predicate": cancelled}],
                             footprint=[{"table": "bookings", "where": [cond("id", kit.scalar("booking_view", "id", *mine))],
                                         "columns": ["status"], "ops": ["update"]},
                                        {"table": "flights", "columns": ["seats"], "ops": ["update"], "where": [
                                            cond("id", kit.scalar("booking_view", "flight_id", *mine))]}])
    user, stay = rng.choice(candidates)
    hotel = ctx.hotel_by_id[stay["hotel_id"]]
    plan = (login_plan(ctx.labels, user["username"], user["password"], via_link=rng.random() < 0.5)
            + [to_trips, ("click", "link", hotel["name"]), *ctx.cancel(ctx.words["cancel_stay"])])
    mine = [cond("user_id", ref("user.id")), cond("hotel", ref("slot.hotel")), cond("city", ref("slot.city"))]
    return make_task(ctx, "cancel_stay", "login_write", "mutate",
                 ["Log in as {username} (password: {password}) and cancel the reservation at the {hotel}.",
                  "Sign in with {username} / {password}, then cancel your stay at the {hotel} in {city}.",
                  "Use the account {username}, password {password}: the room at the {hotel} is no longer needed, "
                  "cancel it."],
                 {"username": user["username"], "password": user["password"], "hotel": hotel["name"],
                  "city": ctx.city(hotel["city_id"])}, plan, user=user["username"], credentials="instruction",
                 goal=[kit.exists("stay_view", *mine, cond("status", "cancelled"))],
                 progress=[{"description": "the reservation is cancelled",
                            "predicate": kit.exists("stay_view", *mine, cond("status", "cancelled"))}],
                 footprint=[{"table": "stays", "where": [cond("id", kit.scalar("stay_view", "id", *mine))],
                             "columns": ["status"], "ops": ["update"]}])


def _rebook(ctx: _Ctx) -> TaskDraft | None:
    """mutate, multi-step over two flows: cancel a flight and book the same service on another day."""
    rng = ctx.rng
    for _ in range(60):
        user = rng.choice(ctx.users)
        trips = _one_trip_to(ctx, user)
        if not trips:
            continue
        booking, flight = rng.choice(trips)
        later = [f for f in ctx.flights if f["number"] == flight["number"] and flight["date"] < f["date"]
                 and f["seats"] >= booking["passengers"] + 1]
        mine = {b["flight_id"] for b in ctx.bookings if b["user_id"] == user["id"]}
        later = [f for f in later if f["id"] not in mine][:4]
        if not later:
            continue
        new = rng.choice(later)
        position = ctx.bookings_of(user["id"]).index(booking)
        plan = ([("click", "link", ctx.words["trips"]), *next_pages(position, 10),
                 ("click", "link", booking["reference"]), *ctx.cancel(ctx.words["cancel_booking"])]
                + ctx.flight_search(flight["origin_id"], flight["destination_id"], new["date"], booking["passengers"],
                                    at_home=False) + [ctx.flight_link(new)] + ctx.book())
        if ctx.cost(plan) > MAX_STEPS:
            continue
        slots = {"city": ctx.city(flight["destination_id"]), "old_date": ctx.day(flight["date"]),
                 "old_day": flight["date"], "date": ctx.day(new["date"]), "day": new["date"],
                 "number": flight["number"], "travellers": _travellers(booking["passengers"]),
                 "passengers": booking["passengers"]}
        old = [cond("user_id", ref("user.id")), cond("dest_city", ref("slot.city")), cond("date", ref("slot.old_day"))]
        target = kit.scalar("flight_view", "id", cond("number", ref("slot.number")), cond("date", ref("slot.day")))
        cancelled = kit.exists("booking_view", *old, cond("status", "cancelled"))
        return make_task(ctx, "rebook", "multi_step_write", "mutate",
                     ["Move your flight to {city} from {old_date} to {date}: cancel the booking and book the same "
                      "flight ({number}) on {date} for {travellers}.",
                      "I can't fly to {city} on {old_date} any more. Cancel that booking and get me on flight {number} "
                      "on {date} instead, {travellers}.",
                      "Change your {city} trip: cancel the flight on {old_date} and book flight {number} on {date} "
                      "for {travellers} instead."], slots, plan,
                     user=user["username"], start_logged_in=True, credentials="profile",
                     goal=[cancelled, _booking_goal(target, cond("passengers", ref("slot.passengers")))],
                     progress=[{"description": "the old booking is cancelled", "predicate": cancelled},
                               {"description": "the new flight is booked", "predicate": _booking_goal(target)}],
                     footprint=[{"table": "bookings", "where": [cond("id", kit.scalar("booking_view", "id", *old))],
                                 "columns": ["status"], "ops": ["update"]},
                                {"table": "flights", "columns": ["seats"], "ops": ["update"],
                                 "where": [cond("id", kit.scalar("booking_view", "flight_id", *old))]},
                                *_booking_footprint(target)])
    return None


def _infeasible(ctx: _Ctx) -> TaskDraft:
    """infeasible: a city the site does not serve, or a route no airline flies; no action can create
    either. The plan looks first: a search that comes back empty, the search page whose city list
    lacks the city, or the list of destinations."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    served = {(f["origin_id"], f["destination_id"]) for f in ctx.flights}
    unserved = sorted((a, b) for a in ctx.cities for b in ctx.cities if a != b and (a, b) not in served)
    kind = rng.choice(["no_route", "no_route", "no_city", "no_hotel_city", "no_hotel"] if unserved
                      else ["no_city", "no_hotel_city", "no_hotel"])
    day = rng.choice(FUTURE_DAYS).isoformat()
    if kind == "no_hotel":
        city = rng.choice(sorted(ctx.cities))
        pool = ctx.in_city(city)
        names = {h["name"] for h in ctx.hotels}
        fake = [f"{ctx.city(city)} {n}" for n in MISSING_HOTEL_NAMES if f"{ctx.city(city)} {n}" not in names]
        if fake and 1 <= len(pool) <= 4 * ctx.ui.hotel_page_size:
            hotel = rng.choice(fake)
            look = ctx.hotel_search(city) + all_pages(len(pool), ctx.ui.hotel_page_size)
            phrasings, slots, plan, who = _as_user(
                ctx, user, ["Book a room at the {hotel} in {city} from {check_in} for two nights.",
                            "Reserve the {hotel} ({city}), checking in on {check_in}, two nights."],
                {"hotel": hotel, "city": ctx.city(city), "check_in": ctx.day(day)},
                look + [("infeasible", f"There is no hotel called {hotel} in {ctx.city(city)} on this site.")], chance=0.4)
            return make_task(ctx, "missing_hotel", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                             goal=[kit.exists("stay_view", cond("user_id", ref("user.id")),
                                              cond("hotel", ref("slot.hotel")))])
        kind = "no_hotel_city"
    if kind == "no_route":
        origin, destination = rng.choice(unserved)
        way = rng.choice(["none", "search", "search", "search"] + (["destinations"] if ctx.ui.has_destinations else []))
        look = [] if way == "none" else ctx.flight_search(origin, destination, day)
        if way == "destinations":  # both cities are served, just not this route
            look = [("click", "link", ctx.words["destinations"])] + ctx.flight_search(origin, destination, day,
                                                                                     at_home=False)
        phrasings, slots, plan, who = _as_user(
            ctx, user, ["Book a flight from {origin} to {destination} on {date}.",
                        "Get me a seat from {origin} to {destination} on {date}, any airline.",
                        "I need to fly {origin} to {destination} on {date}. Book it."],
            {"origin": ctx.city(origin), "destination": ctx.city(destination), "date": ctx.day(day)},
            look + [("infeasible", f"No airline on this site flies from {ctx.city(origin)} to {ctx.city(destination)}.")],
            chance=0.4)
        return make_task(ctx, "unserved_route", "infeasible_route", "infeasible", phrasings, slots, plan, **who,
                         goal=[kit.exists("booking_view", cond("user_id", ref("user.id")),
                                          cond("origin_city", ref("slot.origin")),
                                          cond("dest_city", ref("slot.destination")))])
    missing = rng.choice(MISSING_CITIES)
    cities = sorted(ctx.cities)
    other = rng.choice(cities)

    def look(page: str) -> list[Step]:
        """Open the search page (its city list lacks the city), type the city into a search that
        finds nothing, or read the list of destinations."""
        ways = ["none", "page"] + (["destinations"] if ctx.ui.has_destinations else [])
        ways += ["typed"] if ctx.ui.city_ui == "text" else []
        way = rng.choice(ways)
        if way == "page":
            return [("click", "link", ctx.words[page])]
        if way == "destinations":
            return [("click", "link", ctx.words["destinations"])]
        if way == "typed":
            field = ctx.words["destination" if page == "flights" else "city"]
            steps = (ctx.flight_search(other, next(c for c in cities if c != other), day) if page == "flights"
                     else ctx.hotel_search(other))
            return [("fill", "textbox", field, missing) if s[:3] == ("fill", "textbox", field) else s for s in steps]
        return []

    if kind == "no_city":
        phrasings, slots, plan, who = _as_user(
            ctx, user, ["Book a flight from {origin} to {destination} on {date}.",
                        "Find me the cheapest flight from {origin} to {destination} on {date} and book it.",
                        "I want to fly to {destination} from {origin} on {date}. Book a seat."],
            {"origin": ctx.city(other), "destination": missing, "date": ctx.day(day)},
            look("flights") + [("infeasible", f"This site has no flights to {missing}.")], chance=0.4)
        return make_task(ctx, "missing_city", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                         goal=[kit.exists("booking_view", cond("user_id", ref("user.id")),
                                          cond("dest_city", ref("slot.destination")))])
    phrasings, slots, plan, who = _as_user(
        ctx, user, ["Book a hotel in {city} from {check_in} for three nights.",
                    "Reserve a room in {city} checking in on {check_in}, three nights.",
                    "Find me a place to stay in {city} from {check_in} (three nights) and book it."],
        {"city": missing, "check_in": ctx.day(day)},
        look("hotels") + [("infeasible", f"This site has no hotels in {missing}.")], chance=0.4)
    return make_task(ctx, "missing_hotel_city", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                     goal=[kit.exists("stay_view", cond("user_id", ref("user.id")), cond("city", ref("slot.city")))])

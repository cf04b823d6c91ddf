"""The names a demo tenant is made of: a small embedded list, drawn from by the plan's seeded generator.

Plain data, no generator library: twenty users and a few dozen contacts need a few hundred names, and a
list kept here reads the same on every machine and every version (a library's lists change between
releases, which would change a seed's tenant).
"""

from __future__ import annotations

FIRST_NAMES = (
    "Olivia", "Liam", "Amelia", "Noah", "Isla", "Oliver", "Ava", "George", "Mia", "Arthur", "Grace", "Leo",
    "Freya", "Oscar", "Lily", "Harry", "Ella", "Jack", "Sophie", "Theo", "Chloe", "Henry", "Emily", "Jacob",
    "Ruby", "Charlie", "Evie", "Thomas", "Poppy", "Samuel", "Alice", "Daniel", "Hannah", "James", "Zara",
    "Lucas", "Nadia", "Mateo", "Priya", "Tomasz", "Aisha", "Marco", "Ingrid", "Kofi", "Elena", "Yusuf",
    "Maja", "Rafael", "Sienna", "Omar", "Clara", "Felix", "Anya", "Hugo", "Leah", "Ravi", "Sofia", "Ethan",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies", "Robinson", "Wright",
    "Thompson", "Evans", "Walker", "White", "Roberts", "Green", "Hall", "Wood", "Jackson", "Clarke", "Patel",
    "Khan", "Lewis", "James", "Phillips", "Mason", "Mitchell", "Rose", "Davis", "Rodriguez", "Cox", "Alexander",
    "Garcia", "Campbell", "Kowalski", "Nielsen", "Okafor", "Rossi", "Novak", "Fischer", "Moreau", "Silva",
    "Hughes", "Edwards", "Turner", "Bennett", "Murphy", "Kelly", "Fraser", "Ahmed", "Lindqvist", "Dubois",
)  # fmt: skip
COMPANIES = (
    ("Northwind Logistics", "northwind.example"),
    ("Bluebell Dental Group", "bluebell-dental.example"),
    ("Harbour & Pike Solicitors", "harbourpike.example"),
    ("Kestrel Energy", "kestrel-energy.example"),
    ("Oakridge Property", "oakridge.example"),
    ("Lumen Software", "lumen-software.example"),
)
"""(name, mail domain) of the companies a demo may be; `.example` domains never reach anyone (RFC 2606)."""
CLIENT_COMPANIES = (
    "Acme Retail", "Brightwater Hotels", "Castle Foods", "Delta Freight", "Evergreen Schools", "Fable Books",
    "Granite Builders", "Helix Labs", "Ironbridge Bank", "Juniper Clinics", "Keystone Insurance", "Lark Travel",
    "Meridian Media", "Nimbus Air", "Orchard Farms", "Pioneer Motors", "Quarry Stone", "Riverside Council",
)  # fmt: skip
"""The companies the demo's contacts work for."""

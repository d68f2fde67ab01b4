"""Ten small structured records of our own (issue 46), each with three responses: one that is
right, one wrong in exactly one field, and one that claims a value for a field the record leaves
empty (null). ``silent`` responses say nothing about the null field and must not be penalised for
it. ``field`` names the fact the wrong / null responses are about (as it reads: ``path › key``).

No record comes from a dev set: they were written for these tests, so they are the only held-out
structured data the project has.
"""

from __future__ import annotations

import json

RECORDS: list[dict] = [
    {
        "name": "product",
        "document": json.dumps({
            "product": "Trailblazer 40L Backpack", "brand": "Northpeak", "price": {"amount": 89.99, "currency": "USD"},
            "weight_kg": 1.2, "waterproof": False, "colors": ["black", "olive", "navy"], "warranty_years": 5,
            "laptop_sleeve": True, "rating": 4.6, "release_date": "2023-03-14", "recycled_materials": None}),
        "right": "The Trailblazer 40L Backpack by Northpeak costs $89.99 and weighs 1.2 kg. It has a laptop sleeve.",
        "wrong": "The Trailblazer 40L Backpack is waterproof.",
        "wrong_field": "waterproof",
        "null": "The backpack is made from recycled materials.",
        "null_field": "recycled materials",
        "silent": "The backpack comes in black, olive and navy and has a 5-year warranty.",
    },
    {
        "name": "flight",
        "document": json.dumps({
            "flight": "LH 456", "airline": "Lufthansa", "from": "Frankfurt (FRA)", "to": "San Francisco (SFO)",
            "departure": "2024-06-01 10:25", "arrival": "2024-06-01 13:05", "aircraft": "Airbus A350-900",
            "wifi": True, "meals": 2, "checked_bags_included": 1, "delay_minutes": None}),
        "right": "Lufthansa flight LH 456 flies from Frankfurt to San Francisco on an Airbus A350-900 and has WiFi.",
        "wrong": "The flight includes 2 checked bags.",
        "wrong_field": "checked bags included",
        "null": "The flight is delayed by 45 minutes.",
        "null_field": "delay minutes",
        "silent": "The flight departs on June 1, 2024 and serves 2 meals.",
    },
    {
        "name": "drug label",
        "document": json.dumps({
            "drug": "Ibuprofen", "strength_mg": 200, "form": "tablet",
            "dosage": {"adults": "1 tablet every 4 to 6 hours", "max_daily_tablets": 6},
            "requires_prescription": False, "contains_aspirin": False,
            "warnings": ["Stomach bleeding warning", "Do not use right before or after heart surgery"],
            "pregnancy_category": None}),
        "right": "Ibuprofen comes as a 200 mg tablet and does not require a prescription.",
        "wrong": "Ibuprofen requires a prescription.",
        "wrong_field": "requires prescription",
        "null": "Its pregnancy category is C.",
        "null_field": "pregnancy category",
        "silent": "Adults take 1 tablet every 4 to 6 hours, at most 6 tablets a day.",
    },
    {
        "name": "quarterly table",
        "document": ("| Quarter | Revenue 2023 | Revenue 2024 | Margin 2024 |\n"
                     "|---|---|---|---|\n"
                     "| Q1 | 1.0 bn | 1.1 bn | 12% |\n"
                     "| Q2 | 1.1 bn | 1.3 bn | 14% |\n"
                     "| Q3 | 1.0 bn | 1.2 bn | 13% |\n"
                     "| Q4 | 1.2 bn | 1.5 bn | |\n"),
        "right": "Revenue 2024 in Q2 was 1.3 bn.",
        "wrong": "Revenue 2024 in Q3 was 1.4 bn.",
        "wrong_field": 'row "Q3"',
        "null": "The Q4 margin in 2024 was 15%.",
        "null_field": 'row "Q4"',
        "silent": "Revenue 2023 in Q1 was 1.0 bn.",
    },
    {
        "name": "hotel",
        "document": json.dumps({
            "hotel": "Seaview Inn", "stars": 3, "city": "Brighton", "rooms": 42,
            "amenities": {"pool": False, "parking": True, "breakfast_included": True, "pets_allowed": False},
            "check_in": "15:00", "check_out": "11:00", "spa": None}),
        "right": "Seaview Inn is a 3-star hotel in Brighton with 42 rooms and parking.",
        "wrong": "Seaview Inn has a pool.",
        "wrong_field": "pool",
        "null": "Guests can relax in the spa.",
        "null_field": "spa",
        "silent": "Breakfast is included at the Seaview Inn.",
    },
    {
        "name": "restaurant hours",
        "document": json.dumps({
            "name": "Casa Verde", "cuisine": "Mexican, Vegan",
            "hours": {"Tuesday": "11:0-21:0", "Wednesday": "11:0-21:0", "Thursday": "11:0-21:0",
                      "Friday": "11:0-23:0", "Saturday": "10:0-23:0"},
            "attributes": {"OutdoorSeating": True, "RestaurantsReservations": False, "WiFi": "free",
                           "HappyHour": None}}),
        "right": "Casa Verde is open Tuesday through Thursday from 11 am to 9 pm and has outdoor seating.",
        "wrong": "Casa Verde is open Friday from 11 am to 10 pm.",
        "wrong_field": "Friday",
        "null": "Casa Verde has a happy hour.",
        "null_field": "Happy Hour",
        "silent": "Casa Verde offers free WiFi.",
    },
    {
        "name": "job posting",
        "document": json.dumps({
            "title": "Data Engineer", "company": "Acme Analytics", "location": "Berlin", "remote": True,
            "salary_eur": {"min": 70000, "max": 85000}, "visa_sponsorship": False, "start_date": "2024-09-01",
            "team_size": 6, "equity": None}),
        "right": "Acme Analytics is hiring a Data Engineer in Berlin; the role is remote.",
        "wrong": "Acme Analytics offers visa sponsorship for the role.",
        "wrong_field": "visa sponsorship",
        "null": "The role comes with equity.",
        "null_field": "equity",
        "silent": "The salary ranges from 70000 to 85000 euros.",
    },
    {
        "name": "car listing",
        "document": ("model,year,mileage_km,fuel,price_eur\n"
                     "Golf,2019,48000,petrol,15900\n"
                     "Octavia,2020,61000,diesel,16500\n"
                     "Corolla,2021,30000,hybrid,\n"),
        "right": "The 2020 Octavia is a diesel with 61000 km.",
        "wrong": "The Golf costs 14900 euros.",
        "wrong_field": 'row "Golf"',
        "null": "The Corolla costs 21000 euros.",
        "null_field": 'row "Corolla"',
        "silent": "The Corolla is a 2021 hybrid.",
    },
    {
        "name": "event",
        "document": json.dumps({
            "event": "Harbour Jazz Night", "venue": "Pier 9", "date": "2024-08-17", "doors": "19:00",
            "tickets": {"price_gbp": 25, "sold_out": False, "student_discount": True}, "age_restriction": None,
            "accessible": True}),
        "right": "Harbour Jazz Night takes place at Pier 9 on 17 August 2024; tickets cost 25 pounds.",
        "wrong": "Harbour Jazz Night is sold out.",
        "wrong_field": "sold out",
        "null": "The event has an age restriction of 18.",
        "null_field": "age restriction",
        "silent": "Students get a discount and the venue is accessible.",
    },
    {
        "name": "laptop spec",
        "document": ("<h2>Specifications</h2>\n<table>\n<tr><th>Part</th><th>Value</th></tr>\n"
                     "<tr><td>CPU</td><td>8-core 3.2 GHz</td></tr>\n<tr><td>Memory</td><td>16 GB</td></tr>\n"
                     "<tr><td>Storage</td><td>512 GB SSD</td></tr>\n<tr><td>Battery</td><td>14 hours</td></tr>\n"
                     "<tr><td>Weight</td><td>1.3 kg</td></tr>\n<tr><td>Touchscreen</td><td></td></tr>\n</table>\n"
                     "<p>Ships in 2 days.</p>"),
        "right": "The laptop has 16 GB of memory and a 512 GB SSD.",
        "wrong": "The laptop weighs 1.8 kg.",
        "wrong_field": 'row "Weight"',
        "null": "The laptop has a touchscreen.",
        "null_field": 'row "Touchscreen"',
        "silent": "The battery lasts 14 hours.",
    },
]

"""The fixed texts every encoder backend is checked against (cosine to the fp32 reference)."""

#: The fixed quality-check set: varied registers and lengths, very short utterances included
#: (they are where quantization error shows most).
CHECK_SENTENCES = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Revenue grew 12% year over year, driven by strong cloud demand.",
    "To reset your password, open Settings and choose Security.",
    "The patient was given 5 mg of the drug twice a day.",
    "She did not attend the meeting on Tuesday.",
    "Hours: Monday 8:00-14:00, closed on Sunday.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "No.",
    "Thank you.",
    "Hi!",
    "Who founded the company and when?",
    "I'm sorry, the documents do not say how many employees the firm has.",
    '{"business": "Golden Wok", "stars": 3.5, "GoodForKids": true, "WiFi": "free"}',
    "Die Brücke wurde 1932 eröffnet und 1998 renoviert.",
    "for i in range(10): print(i * 2)",
    "Based on the provided context, the answer is 42 kilometres.",
    " ".join(["Tax revenue, public spending and the deficit are reported for each quarter of the year,"
              " together with the debt ratio and the outlook of the finance ministry."] * 3),
)

"""A months-long two-person conversation with questions whose evidence sits in known turns, in
the long-memory JSON format (`mindstream eval long-memory --data`).

Maya and Leo talk in 24 sessions from January to May 2024. Facts are said once and asked
about later; some change (Maya moves, changes jobs, cars, sport, book; a wedding is moved),
and their questions carry `outdated`: the turns that stated the old fact. Distractors mention
the same topics without the fact; filler is everyday chat. Written by hand for mindstream's
tests and docs; deterministic (`python -m lab.experiments.long_memory_data OUT`).
"""

from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

A, B = "Maya", "Leo"
START = datetime(2024, 1, 3, 19, 12)
SESSIONS = 24
# (session, speaker, key, text): a key names a turn that questions cite as evidence.
FACTS: list[tuple[int, str, str, str]] = [
    (1, A, "dog", "Big news: I adopted a beagle puppy last weekend. We named him Biscuit."),
    (1, B, "hana_boston", "My sister Hana just started nursing school in Boston."),
    (1, A, "job_brightline", "Work is fine, I'm still a graphic designer at Brightline."),
    (2, A, "porto", "My flat in Porto is tiny but it's right by the river."),
    (2, A, "peanuts", "I have to read every label, I'm allergic to peanuts."),
    (2, B, "cello", "I've been learning the cello since November, my neighbours hate it."),
    (2, A, "espresso", "I can't start the day without my morning espresso."),
    (3, A, "wedding_june", "My brother Tomas is getting married in June!"),
    (3, A, "running", "I joined a running club, we run Tuesday and Thursday mornings."),
    (4, A, "overstory", "My book club is reading The Overstory this month."),
    (4, B, "kumo", "My favourite place to eat is still Kumo, that little ramen bar."),
    (5, A, "fiat", "My old red Fiat broke down again on the way to work."),
    (5, A, "mum_birthday", "Mum's birthday is on the 14th of February, I need a present."),
    (6, A, "headphones", "Biscuit chewed through my headphones, the little monster."),
    (6, A, "japan_plan", "Ines and I are planning a trip to Japan in April."),
    (7, B, "promotion", "I got promoted, I'm team lead at the bank now."),
    (7, A, "gift_scarf", "I bought Mum a blue wool scarf for her birthday."),
    (8, A, "rent_900", "My landlord raised the rent to 900 euros, unbelievable."),
    (8, B, "miso", "We adopted a grey cat from the shelter, her name is Miso."),
    (9, A, "japanese", "I practise Japanese on an app every evening for the trip."),
    (9, A, "green_tea", "I switched from espresso to green tea, my stomach feels better."),
    (10, A, "best_woman", "Tomas asked me to give the speech at his wedding, I'm his best woman."),
    (10, B, "marathon", "I signed up for the Lisbon half marathon in March."),
    (11, A, "leaving", "I'm thinking about leaving Brightline, the hours are brutal."),
    (12, A, "job_northwind", "I accepted an offer from Northwind Studio, I'll be art director."),
    (12, A, "start_date", "My first day at Northwind is the 4th of March."),
    (13, A, "zoe", "I sold the Fiat and bought a second-hand electric Renault Zoe."),
    (13, B, "marathon_time", "I finished the half marathon in one hour fifty-two."),
    (14, A, "lisbon", "We moved! I live in Lisbon now, in a flat in Alfama."),
    (14, A, "rent_1100", "The rent here is 1100 euros, but the light is worth it."),
    (15, A, "beach", "Biscuit goes crazy on the beach at Carcavelos."),
    (15, A, "priya", "My new manager at Northwind is called Priya, she's great."),
    (16, A, "swimming", "I hurt my knee, so I quit running; I swim on Monday evenings now."),
    (16, B, "cello_recital", "My first cello recital is on the 20th of April."),
    (17, A, "kyoto", "We're in Kyoto! Ines got lost in the bamboo forest this morning."),
    (17, A, "ryokan", "We're staying in a ryokan with a hot spring near Gion."),
    (18, A, "piranesi", "Book club moved on, we're reading Piranesi now."),
    (18, B, "hana_chicago", "Hana transferred to a nursing school in Chicago."),
    (19, A, "wedding_september", "Tomas moved the wedding to September, the venue flooded."),
    (19, A, "dress", "I found a green dress for the wedding at a shop in Chiado."),
    (20, A, "coffee_again", "I'm back on coffee, green tea can't get me through early meetings."),
    (20, B, "band", "I joined a small orchestra that rehearses on Wednesdays."),
    (21, A, "biscuit_birthday", "Biscuit turned one, we had a tiny party with a dog cake."),
    (21, A, "pitch", "Priya wants me to lead the pitch for the museum project."),
    (22, A, "museum_won", "We won the museum project! Priya took the team to dinner."),
    (22, B, "miso_vet", "Miso had to go to the vet, she ate a hair tie."),
    (23, A, "surf", "I took my first surf lesson at Costa da Caparica."),
    (24, A, "sister_visit", "Leo, guess what, Hana is coming to visit me in Lisbon in June."),
]
# Turns on a fact's topic that do not state it: what a retriever must see past.
DISTRACTORS: list[tuple[int, str, str]] = [
    (3, B, "How is the puppy doing?"),
    (4, A, "He sleeps all day, a very lazy dog."),
    (6, B, "Do you still like your job?"),
    (7, A, "Work is busy, lots of posters this week."),
    (9, B, "Is the flat warm enough in winter?"),
    (11, B, "How's the car holding up?"),
    (12, B, "Did you talk to your brother about the wedding?"),
    (14, B, "Are you still running with the club?"),
    (15, B, "What is your book club reading?"),
    (16, A, "The tea there was amazing, by the way."),
    (18, A, "I miss Porto sometimes, but not the rent."),
    (20, B, "Is the new manager strict?"),
    (21, B, "Hana says hi, she loves your dog photos."),
    (23, B, "How's the knee?"),
]
FILLER = [
    (A, "Hey! How was your week?"),
    (B, "Pretty good, a bit tired. Yours?"),
    (A, "Busy, but nothing special."),
    (B, "The weather has been awful lately."),
    (A, "I know, it rained all weekend."),
    (B, "Did you watch anything good?"),
    (A, "I started a new crime series, it's fun."),
    (B, "I cooked a big pot of soup on Sunday."),
    (A, "That sounds cozy."),
    (B, "I need to sleep more, honestly."),
    (A, "Same, I keep staying up too late."),
    (B, "Anyway, I should go, talk soon!"),
    (A, "Bye! Talk soon."),
    (B, "Haha, that's so true."),
    (A, "Let's catch up again next week."),
    (B, "I went to the market and bought too many oranges."),
    (A, "My phone battery dies so fast these days."),
    (B, "Traffic was terrible this morning."),
    (A, "I tried a new bakery, the croissants were great."),
    (B, "Work meetings ran late again."),
]
# (question, answer, category, evidence keys, outdated keys)
QUESTIONS: list[tuple[str, str, str, list[str], list[str]]] = [
    ("What is the name of Maya's dog?", "Biscuit", "single-hop", ["dog"], []),
    ("What breed is Maya's dog?", "a beagle", "single-hop", ["dog"], []),
    (
        "When did Maya adopt her puppy?",
        "the weekend before 3 January 2024",
        "temporal",
        ["dog"],
        [],
    ),
    ("Where did Leo's sister first study nursing?", "Boston", "single-hop", ["hana_boston"], []),
    ("What is Leo's sister studying?", "nursing", "single-hop", ["hana_boston"], []),
    ("What is the name of Leo's sister?", "Hana", "single-hop", ["hana_boston"], []),
    ("Where does Leo's sister study now?", "Chicago", "changed", ["hana_chicago"], ["hana_boston"]),
    (
        "What was Maya's job at Brightline?",
        "graphic designer",
        "single-hop",
        ["job_brightline"],
        [],
    ),
    (
        "Where does Maya work now?",
        "Northwind Studio",
        "changed",
        ["job_northwind"],
        ["job_brightline"],
    ),
    (
        "What is Maya's job title now?",
        "art director",
        "changed",
        ["job_northwind"],
        ["job_brightline"],
    ),
    (
        "Why did Maya want to leave Brightline?",
        "the hours were brutal",
        "single-hop",
        ["leaving"],
        [],
    ),
    ("When did Maya start at Northwind?", "4 March", "temporal", ["start_date"], []),
    ("Who is Maya's manager at Northwind?", "Priya", "single-hop", ["priya"], []),
    ("Which city does Maya live in now?", "Lisbon", "changed", ["lisbon"], ["porto"]),
    ("Which neighbourhood of Lisbon does Maya live in?", "Alfama", "single-hop", ["lisbon"], []),
    ("Where did Maya live in January?", "Porto, by the river", "temporal", ["porto"], []),
    ("How much rent does Maya pay now?", "1100 euros", "changed", ["rent_1100"], ["rent_900"]),
    (
        "How much did Maya's Porto landlord raise the rent to?",
        "900 euros",
        "single-hop",
        ["rent_900"],
        [],
    ),
    ("What is Maya allergic to?", "peanuts", "single-hop", ["peanuts"], []),
    (
        "Why does Maya read every food label?",
        "she is allergic to peanuts",
        "single-hop",
        ["peanuts"],
        [],
    ),
    ("What instrument is Leo learning?", "the cello", "single-hop", ["cello"], []),
    ("Since when has Leo been learning the cello?", "November 2023", "temporal", ["cello"], []),
    ("When is Leo's first cello recital?", "20 April", "temporal", ["cello_recital"], []),
    (
        "What does Maya drink in the morning now?",
        "coffee",
        "changed",
        ["coffee_again"],
        ["espresso", "green_tea"],
    ),
    (
        "Why did Maya switch from espresso to green tea?",
        "her stomach",
        "single-hop",
        ["green_tea"],
        [],
    ),
    (
        "Why did Maya go back to coffee?",
        "green tea could not get her through early meetings",
        "single-hop",
        ["coffee_again"],
        [],
    ),
    ("Who is getting married?", "Maya's brother Tomas", "single-hop", ["wedding_june"], []),
    (
        "When is Tomas's wedding now?",
        "September",
        "changed",
        ["wedding_september"],
        ["wedding_june"],
    ),
    (
        "Why was Tomas's wedding moved?",
        "the venue flooded",
        "single-hop",
        ["wedding_september"],
        [],
    ),
    (
        "What will Maya do at her brother's wedding?",
        "give the speech as his best woman",
        "single-hop",
        ["best_woman"],
        [],
    ),
    (
        "What will Maya wear to the wedding?",
        "a green dress from Chiado",
        "single-hop",
        ["dress"],
        [],
    ),
    (
        "What sport does Maya do now?",
        "swimming on Monday evenings",
        "changed",
        ["swimming"],
        ["running"],
    ),
    ("Why did Maya quit running?", "she hurt her knee", "single-hop", ["swimming"], []),
    (
        "On which days did Maya's running club meet?",
        "Tuesday and Thursday mornings",
        "single-hop",
        ["running"],
        [],
    ),
    (
        "What book is Maya's book club reading now?",
        "Piranesi",
        "changed",
        ["piranesi"],
        ["overstory"],
    ),
    ("What did Maya's book club read first?", "The Overstory", "temporal", ["overstory"], []),
    ("What is Leo's favourite restaurant?", "Kumo, a ramen bar", "single-hop", ["kumo"], []),
    (
        "What car does Maya drive now?",
        "a second-hand electric Renault Zoe",
        "changed",
        ["zoe"],
        ["fiat"],
    ),
    ("What colour was Maya's old Fiat?", "red", "single-hop", ["fiat"], []),
    ("When is Maya's mother's birthday?", "14 February", "temporal", ["mum_birthday"], []),
    (
        "What present did Maya buy her mother?",
        "a blue wool scarf",
        "single-hop",
        ["gift_scarf"],
        [],
    ),
    ("What did Biscuit chew?", "Maya's headphones", "single-hop", ["headphones"], []),
    ("What did Maya's beagle destroy?", "her headphones", "multi-hop", ["dog", "headphones"], []),
    ("Who did Maya travel to Japan with?", "Ines", "single-hop", ["japan_plan"], []),
    ("When was Maya's trip to Japan?", "April", "temporal", ["japan_plan"], []),
    ("Which Japanese city did Maya visit?", "Kyoto", "single-hop", ["kyoto"], []),
    ("Who got lost in the bamboo forest?", "Ines", "single-hop", ["kyoto"], []),
    (
        "Where did Maya stay in Kyoto?",
        "a ryokan with a hot spring near Gion",
        "single-hop",
        ["ryokan"],
        [],
    ),
    ("What language is Maya learning?", "Japanese", "single-hop", ["japanese"], []),
    (
        "Why is Maya learning Japanese?",
        "for her trip to Japan",
        "multi-hop",
        ["japanese", "japan_plan"],
        [],
    ),
    ("What is Leo's job now?", "team lead at the bank", "single-hop", ["promotion"], []),
    ("Where does Leo work?", "at a bank", "single-hop", ["promotion"], []),
    ("What is the name of Leo's cat?", "Miso", "single-hop", ["miso"], []),
    (
        "Why did Leo's cat go to the vet?",
        "she ate a hair tie",
        "multi-hop",
        ["miso", "miso_vet"],
        [],
    ),
    ("Where did Leo get his cat?", "from the shelter", "single-hop", ["miso"], []),
    ("Which race did Leo sign up for?", "the Lisbon half marathon", "single-hop", ["marathon"], []),
    (
        "How fast did Leo run the half marathon?",
        "one hour fifty-two",
        "single-hop",
        ["marathon_time"],
        [],
    ),
    ("When did Leo run the half marathon?", "March", "temporal", ["marathon"], []),
    ("Where does Maya take Biscuit to the beach?", "Carcavelos", "single-hop", ["beach"], []),
    ("How old is Biscuit now?", "one year", "single-hop", ["biscuit_birthday"], []),
    (
        "What project does Priya want Maya to lead?",
        "the pitch for the museum project",
        "single-hop",
        ["pitch"],
        [],
    ),
    ("Did Maya's team win the museum project?", "yes", "single-hop", ["museum_won"], []),
    (
        "What did Maya's manager do after the museum project was won?",
        "took the team to dinner",
        "multi-hop",
        ["museum_won", "priya"],
        [],
    ),
    ("Where did Maya take a surf lesson?", "Costa da Caparica", "single-hop", ["surf"], []),
    ("When does Hana visit Maya?", "June", "temporal", ["sister_visit"], []),
    (
        "Who is visiting Maya in Lisbon?",
        "Leo's sister Hana",
        "multi-hop",
        ["sister_visit", "hana_boston"],
        [],
    ),
    ("On which day does Leo's orchestra rehearse?", "Wednesdays", "single-hop", ["band"], []),
    ("What did Maya move into in Lisbon?", "a flat in Alfama", "single-hop", ["lisbon"], []),
    ("Why did Maya sell her Fiat?", "it kept breaking down", "multi-hop", ["fiat", "zoe"], []),
    ("Which car broke down on Maya's way to work?", "her old red Fiat", "single-hop", ["fiat"], []),
    ("What was the rent of Maya's flat in Porto?", "900 euros", "temporal", ["rent_900"], []),
    ("How does Maya like her new manager?", "she's great", "single-hop", ["priya"], []),
    (
        "What did Maya say about the light in her Lisbon flat?",
        "worth the rent",
        "single-hop",
        ["rent_1100"],
        [],
    ),
    (
        "What cake did Biscuit get for his birthday?",
        "a dog cake",
        "single-hop",
        ["biscuit_birthday"],
        [],
    ),
    ("Where did Maya buy her wedding dress?", "a shop in Chiado", "single-hop", ["dress"], []),
    (
        "Who is Maya's travel companion and what happened to her in Kyoto?",
        "Ines got lost in the bamboo forest",
        "multi-hop",
        ["japan_plan", "kyoto"],
        [],
    ),
    ("What did Maya drink before she switched to tea?", "espresso", "temporal", ["espresso"], []),
    (
        "Who is Leo's sister and where does she study now?",
        "Hana, in Chicago",
        "multi-hop",
        ["hana_boston", "hana_chicago"],
        [],
    ),
    (
        "What is Maya's role at her brother's wedding and when is it?",
        "best woman, in September",
        "multi-hop",
        ["best_woman", "wedding_september"],
        [],
    ),
    ("What kind of pet does Leo have?", "a grey cat", "single-hop", ["miso"], []),
    ("How did Leo's neighbours feel about his cello?", "they hate it", "single-hop", ["cello"], []),
    (
        "Where is Maya's favourite beach for her dog?",
        "Carcavelos",
        "multi-hop",
        ["beach", "dog"],
        [],
    ),
    ("When did Leo get promoted?", "in February", "temporal", ["promotion"], []),
    (
        "What kind of school did Hana transfer to?",
        "a nursing school in Chicago",
        "single-hop",
        ["hana_chicago"],
        [],
    ),
    ("Where was Maya's flat before she moved?", "Porto", "temporal", ["porto"], []),
    (
        "Which job did Maya accept?",
        "art director at Northwind Studio",
        "single-hop",
        ["job_northwind"],
        [],
    ),
    (
        "What made Maya's new car different from the Fiat?",
        "it is electric",
        "multi-hop",
        ["zoe", "fiat"],
        [],
    ),
    ("Was it Maya's first time surfing?", "yes, her first surf lesson", "single-hop", ["surf"], []),
    ("What happened to Maya's knee?", "she hurt it", "single-hop", ["swimming"], []),
    ("When does Maya swim?", "Monday evenings", "single-hop", ["swimming"], []),
    ("How does Maya practise Japanese?", "on an app every evening", "single-hop", ["japanese"], []),
    ("Where is the hot spring Maya stayed at?", "near Gion in Kyoto", "single-hop", ["ryokan"], []),
    ("Which restaurant serves ramen that Leo loves?", "Kumo", "single-hop", ["kumo"], []),
    (
        "Which of Maya's family members is getting married?",
        "her brother Tomas",
        "single-hop",
        ["wedding_june"],
        [],
    ),
    (
        "What does Maya's new job involve?",
        "art direction at Northwind Studio",
        "single-hop",
        ["job_northwind"],
        [],
    ),
    ("How long has Maya had Biscuit?", "about a year", "temporal", ["dog", "biscuit_birthday"], []),
    ("What did Leo's cat swallow?", "a hair tie", "single-hop", ["miso_vet"], []),
    ("What did Leo join on Wednesdays?", "a small orchestra", "single-hop", ["band"], []),
    ("Which sport did Maya try at Costa da Caparica?", "surfing", "single-hop", ["surf"], []),
    (
        "What did Maya say about living by the river?",
        "her Porto flat is tiny but by the river",
        "single-hop",
        ["porto"],
        [],
    ),
    ("Who chewed through Maya's headphones?", "Biscuit", "single-hop", ["headphones"], []),
]


def build(seed: int = 0) -> dict[str, Any]:
    """The one sample: its conversation (sessions with dates) and its questions."""
    rng = random.Random(seed)
    conversation: dict[str, Any] = {"speaker_a": A, "speaker_b": B}
    dia_of: dict[str, str] = {}
    for session in range(1, SESSIONS + 1):
        turns = _session_turns(session, rng)
        lines = []
        for n, (speaker, text, key) in enumerate(turns, start=1):
            dia_id = f"D{session}:{n}"
            if key:
                dia_of[key] = dia_id
            lines.append({"speaker": speaker, "dia_id": dia_id, "text": text})
        when = START + timedelta(days=5 * (session - 1), minutes=rng.randint(-90, 90))
        conversation[f"session_{session}"] = lines
        conversation[f"session_{session}_date_time"] = _lo_co_mo_date(when)
    qa = [
        {
            "question": question,
            "answer": answer,
            "category": category,
            "evidence": [dia_of[k] for k in keys],
            "outdated": [dia_of[k] for k in outdated],
        }
        for question, answer, category, keys, outdated in QUESTIONS
    ]
    return {"sample_id": "maya-leo", "conversation": conversation, "qa": qa}


def _session_turns(session: int, rng: random.Random) -> list[tuple[str, str, str | None]]:
    said: list[tuple[str, str, str | None]] = [(s, t, k) for n, s, k, t in FACTS if n == session]
    said += [(s, t, None) for n, s, t in DISTRACTORS if n == session]
    rng.shuffle(said)
    filler = [(s, t, None) for s, t in rng.sample(FILLER, rng.randint(10, 14))]
    turns = filler[:2] + said + filler[2:]
    return turns


def _lo_co_mo_date(moment: datetime) -> str:
    hour = moment.strftime("%I").lstrip("0")
    return (
        f"{hour}:{moment:%M} {moment:%p}".lower() + f" on {moment.day} {moment:%B}, {moment.year}"
    )


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("long_memory.json")
    out.write_text(json.dumps([build()], indent=1) + "\n", encoding="utf-8")
    data = build()
    turns = sum(len(v) for k, v in data["conversation"].items() if k.endswith(tuple("0123456789")))
    print(f"written {out}: {SESSIONS} sessions, {turns} turns, {len(data['qa'])} questions")


if __name__ == "__main__":
    main()

"""Ordinary prose as a chat model writes an answer: Markdown in English, a non-ASCII variant, and
an answer that is mostly code.

The region workloads (``regions``) grow one region of a real generation to a few KB of this
text. It has what answers have and what a streaming parser's fast path meets on every chunk:
sentences of words separated by spaces, paragraphs separated by blank lines, a Markdown list
(bulleted and numbered), inline code spans, numbers (counts, decimals, times, percentages),
parentheses, colons and semicolons, and now and then a ``<`` in a code span (``n < 10``), which
keeps the partial matching of tag-shaped delimiters honest. It has no ``[`` or ``{``: real
templates open tool calls on them (``[TOOL_CALLS]``, ``[func(``, ``{"name"``), and a workload
that opened a call where it meant to stream prose would time something else.

The non-ASCII variant mixes Chinese (with its full-width punctuation), accented Latin (French,
Spanish, German, Portuguese) and emoji, in the same Markdown shapes. The code variant is mostly
fenced code (HTML, C++, TypeScript), where ``<`` and ``{`` stand on most lines; it has no ``[``
either.

Both are deterministic for a seed and never start or end with whitespace (text fields are
stripped, and the workloads check the region comes back exactly).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

_SUBJECTS = (
    "the forecast",
    "the bakery near the Louvre",
    "the first train",
    "this plan",
    "the museum",
    "your alarm",
    "the walk along the river",
    "the weather service",
    "the parser",
    "each step",
    "the second option",
    "the café on the corner",
)
_VERBS = (
    "should stay",
    "usually opens",
    "takes",
    "depends on",
    "looks",
    "will change",
    "gives",
    "needs",
    "keeps",
    "can handle",
)
_ENDINGS = (
    "mild and dry until the afternoon",
    "about {n} minutes on foot",
    "a little earlier on weekdays",
    "what time you want to leave",
    "better than the alternative",
    "{n} results for that search",
    "the same answer every time",
    "at {h}:{m:02d} on most days",
    "around {n} °C with a light breeze",
    "a {p}% chance of rain after {h} pm",
    "roughly {n}.{d} euros for two croissants",
    "a short queue before {h}:{m:02d}",
)
_OPENERS = ("", "", "", "In short, ", "Note that ", "If it rains, ", "Otherwise, ", "Also, ")
_CODE = (
    "get_weather",
    "set_alarm(7, 30)",
    "max_results=5",
    "n < 10",
    "days=3",
    "--verbose",
    "parse_response(text)",
    'timezone="Europe/Paris"',
    "x <= 2",
    "README.md",
)
_ITEMS = (
    "check the weather with `{code}` before you leave",
    "take line {n} of the metro; it runs every {d} minutes",
    "order two croissants (about {n}.{d} euros)",
    "set the alarm for {h}:{m:02d}",
    "bring an umbrella if the chance of rain is above {p}%",
    "leave {n} minutes early on a Monday",
    "compare `{code}` with the previous result",
)

_HAN = (
    "今天巴黎天气晴朗",
    "气温大约在十二到十七度之间",
    "早上七点半出发比较合适",
    "步行到面包店大约需要十五分钟",
    "如果下雨记得带伞",
    "地铁一号线每四分钟一班",
    "博物馆九点开门",
    "建议提前预订门票",
    "这个计划比较简单",
    "下午可能会有阵雨",
)
_HAN_PUNCT = ("，", "，", "；", "：")
_LATIN = (
    "Il fera doux à Paris, environ {n} °C",
    "La boulangerie ouvre à {h} h {m:02d}, près du musée",
    "El café está a {n} minutos a pie",
    "Mañana habrá un {p}% de probabilidad de lluvia",
    "Die Straßenbahn fährt alle {d} Minuten",
    "Für Frühstück reichen ungefähr {n} Euro",
    "A padaria fica perto da estação, não é longe",
    "Ça dépend de l’heure à laquelle vous partez",
)
_EMOJI = ("☀️", "🌧️", "🥐", "🚇", "⏰", "👍", "🙂", "☔", "🗼", "✨")


def _numbers(rng: random.Random) -> dict[str, int]:
    return {
        "n": rng.randint(2, 120),
        "d": rng.randint(1, 9),
        "h": rng.randint(6, 11),
        "m": rng.choice((0, 15, 30, 45)),
        "p": rng.choice((10, 20, 35, 60)),
    }


def _english_sentence(rng: random.Random) -> str:
    ending = rng.choice(_ENDINGS).format(**_numbers(rng))
    sentence = f"{rng.choice(_OPENERS)}{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {ending}"
    if rng.random() < 0.2:
        sentence += f" (see `{rng.choice(_CODE)}`)"
    return sentence[0].upper() + sentence[1:]


def _english_paragraph(rng: random.Random) -> str:
    sentences = [_english_sentence(rng) for _ in range(rng.randint(2, 5))]
    text = sentences[0]
    for sentence in sentences[1:]:
        mark = rng.choice((". ", ". ", ". ", "! ", "; ", ": "))
        text += mark + (sentence if mark[0] in ".!" else sentence[0].lower() + sentence[1:])
    return text + "."


def _english_list(rng: random.Random) -> str:
    numbered = rng.random() < 0.4
    lines = []
    for index in range(rng.randint(3, 5)):
        item = rng.choice(_ITEMS).format(code=rng.choice(_CODE), **_numbers(rng))
        mark = f"{index + 1}." if numbered else "-"
        lines.append(f"{mark} {item[0].upper()}{item[1:]}.")
    return "\n".join(lines)


def _mixed_sentence(rng: random.Random) -> str:
    if rng.random() < 0.55:
        clauses = [rng.choice(_HAN) for _ in range(rng.randint(1, 3))]
        text = "".join(c + rng.choice(_HAN_PUNCT) for c in clauses[:-1]) + clauses[-1] + "。"
    else:
        text = rng.choice(_LATIN).format(**_numbers(rng)) + "."
    if rng.random() < 0.35:
        text += " " + rng.choice(_EMOJI)
    return text


def _mixed_paragraph(rng: random.Random) -> str:
    return " ".join(_mixed_sentence(rng) for _ in range(rng.randint(2, 5)))


def _mixed_list(rng: random.Random) -> str:
    numbered = rng.random() < 0.4
    lines = []
    for index in range(rng.randint(3, 5)):
        item = (
            rng.choice(_HAN) if rng.random() < 0.5 else rng.choice(_LATIN).format(**_numbers(rng))
        )
        if rng.random() < 0.4:
            item += " " + rng.choice(_EMOJI)
        lines.append(f"{index + 1}. {item}" if numbered else f"- {item}")
    return "\n".join(lines)


_Block = Callable[[random.Random], str]


def _blocks(paragraph: _Block, listing: _Block, size: int, seed: int) -> str:
    rng = random.Random(seed)
    blocks: list[str] = []
    length = 0
    while length < size:
        block = listing(rng) if blocks and rng.random() < 0.25 else paragraph(rng)
        blocks.append(block)
        length += len(block) + 2
    text = "\n\n".join(blocks)[:size]
    # No whitespace at either end: text fields are stripped, and the check compares them.
    return text.strip() + "." if text[-1:].isspace() else text.strip()


@lru_cache(maxsize=32)
def answer_prose(size: int, seed: int = 0) -> str:
    """About ``size`` characters of an English Markdown answer (deterministic for a seed)."""
    return _blocks(_english_paragraph, _english_list, size, seed)


@lru_cache(maxsize=32)
def unicode_prose(size: int, seed: int = 0) -> str:
    """About ``size`` characters of Chinese, accented Latin and emoji, in Markdown."""
    return _blocks(_mixed_paragraph, _mixed_list, size, seed)


# The code variant: an answer that shows code, as assistants often do. HTML, C++ and TypeScript
# put `<` (tags, templates, generics, comparisons) and `{` on most lines: the characters
# tag-shaped and JSON-shaped delimiters begin with, which prose holds only now and then. No `[`
# (pythonic and Mistral templates open calls on it) and no `{"name"` (Llama's JSON calls).
_HTML = (
    '<div class="card">',
    "  <h2>{title}</h2>",
    '  <p class="price">{n}.{d} EUR</p>',
    '  <a href="/items/{n}">Details</a>',
    "  <ul>",
    "    <li>Line {n}</li>",
    "  </ul>",
    "</div>",
)
_CPP = (
    "template <typename T>",
    "std::vector<T> take(const std::map<int, T>& items, int n) {",
    "  std::vector<T> out;",
    "  for (auto it = items.begin(); it != items.end() && n > 0; ++it, --n) {",
    "    if (it->first < {n}) out.push_back(it->second);",
    "  }",
    "  return out;",
    "}",
)
_TS = (
    "function groupBy<K, V>(values: Array<V>, key: (v: V) => K): Map<K, Array<V>> {",
    "  const out = new Map<K, Array<V>>();",
    "  for (const v of values) out.set(key(v), (out.get(key(v)) ?? new Array<V>()).concat(v));",
    "  return out;",
    "}",
    "const ok = count <= {n} && total >= {d};",
)
_LANGUAGES = (("html", _HTML), ("cpp", _CPP), ("ts", _TS))


def _code_block(rng: random.Random) -> str:
    language, lines = rng.choice(_LANGUAGES)
    count = rng.randint(3, len(lines))
    start = rng.randint(0, len(lines) - count)
    body = "\n".join(
        line.replace("{n}", str(rng.randint(2, 120)))
        .replace("{d}", str(rng.randint(1, 9)))
        .replace("{title}", rng.choice(("Croissant", "Metro pass", "Umbrella")))
        for line in lines[start : start + count]
    )
    return f"```{language}\n{body}\n```"


def _code_answer_block(rng: random.Random) -> str:
    return _code_block(rng) if rng.random() < 0.75 else _english_paragraph(rng)


@lru_cache(maxsize=32)
def code_prose(size: int, seed: int = 0) -> str:
    """About ``size`` characters of an English answer that is mostly fenced code (HTML, C++,
    TypeScript), with paragraphs and a list between."""
    return _blocks(_code_answer_block, _english_list, size, seed)


VARIANTS: dict[str, Callable[[int, int], str]] = {
    "": answer_prose,
    "unicode": unicode_prose,
    "code": code_prose,
}
"""The text of each region workload variant: ``answer`` is English, ``answer:unicode`` not,
``answer:code`` mostly code."""

VARIANT_REGIONS: dict[str, tuple[str, ...]] = {"code": ("answer",)}
"""The regions a variant is timed in, where not all: code in the answer (a model that writes
code in its reasoning or a call's arguments sends the same text through the same fast path)."""


def in_region(variant: str, region: str) -> bool:
    """Whether ``variant`` is timed in ``region`` (see ``VARIANT_REGIONS``)."""
    return region in VARIANT_REGIONS.get(variant, (region,))

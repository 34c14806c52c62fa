# The old typing spellings are the point here: typing.Optional/Union/List build different
# hint objects from `X | None`, `list[...]`, and both must convert identically.
# ruff: noqa: UP006, UP007, UP042, UP045
"""rtc.runtime.json_schema.get_json_schema against transformers 5.23.0's (the oracle).

Outcomes must agree exactly: the same schema dict (key order and value types included) or
an exception of the same kind (our two exception classes are matched to transformers'
classes of the same name, every other exception by its exact type).

Annotations in this module are strings (``from __future__ import annotations``), so every
hint below is resolved by ``typing.get_type_hints`` from module globals, as for most user
code; the hypothesis tests build functions with real hint objects instead.
"""

from __future__ import annotations

import enum
import functools
import json
import math
import typing
from collections.abc import Callable, Sequence
from typing import Any, Literal, Optional, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ids import stable_repr
from transformers.utils import chat_template_utils as reference

from rtc.runtime import json_schema
from rtc.runtime.json_schema import (
    DocstringParsingException,
    TypeHintParsingException,
    get_json_schema,
)

pytestmark = pytest.mark.core


def canon(value: Any) -> Any:
    if isinstance(value, dict):
        return ("dict", tuple((k, canon(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(canon(item) for item in value))
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(build: Callable[[Any], Any], func: Any) -> Any:
    try:
        return ("value", canon(build(func)))
    except Exception as exc:  # the exception kind is the observable
        kind = type(exc)
        if kind.__name__ in ("TypeHintParsingException", "DocstringParsingException"):
            return ("raises", kind.__name__)
        return ("raises", kind)


def assert_same(func: Any) -> Any:
    ours = outcome(get_json_schema, func)
    theirs = outcome(reference.get_json_schema, func)
    assert ours == theirs, func
    return ours


# --- a broad set of hand-written tools ---------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    A = 1
    B = "b"
    C = None
    D = 2.5


class Empty(enum.Enum):
    pass


class Tupled(enum.Enum):
    A = (1, 2)


class Flavour(str, enum.Enum):
    SWEET = "sweet"


class Custom:
    pass


def multiply(x: float, y: float):
    """
    A function that multiplies two numbers

    Args:
        x: The first number to multiply
        y: The second number to multiply
    """
    return x * y


def scalars(a: int, b: float, c: str, d: bool = False, e: None = None, f: Any = 1) -> str:
    """Every scalar hint.

    Args:
        a: an int
        b: a float
        c: a string
        d: a flag
        e: always None
        f: anything at all

    Returns:
        A string.
    """
    return ""


def optionals(
    a: Optional[int],
    b: int | None,
    c: Union[int, str],
    d: int | str | None = None,
    e: list[int] | tuple[str, int] | None = None,
    f: Optional[Any] = None,
    g: list | tuple = (),
    h: Literal["x"] | int = 1,
    i: Union[bool, int, float, str] = 0,
) -> Optional[int]:
    """Unions of all kinds.

    Args:
        a: optional int
        b: pipe optional
        c: int or string
        d: int, string or null
        e: a list or a pair, or null
        f: anything or null
        g: list or tuple, which are both arrays
        h: a literal or an int
        i: four scalars
    """


def containers(
    a: list,
    b: list[int],
    c: typing.List[str],  # noqa: UP006
    d: list[list[float]],
    e: tuple,
    f: tuple[int, str],
    g: dict,
    h: dict[str, int],
    i: typing.Dict,  # noqa: UP006
    j: dict[str, list[Literal[1, 2]]],
    k: tuple[()],
    m: typing.List,  # noqa: UP006
) -> dict[str, Any]:
    """Containers.

    Args:
        a: bare list
        b: list of ints
        c: typing list of str
        d: nested lists
        e: bare tuple
        f: a pair
        g: bare dict
        h: str to int
        i: typing dict
        j: str to list of literals
        k: empty tuple
        m: bare typing list

    Returns:
        A mapping
    """
    return {}


def literals(
    a: Literal["tea", "coffee"],
    b: Literal[1, "a", None, True, 2.5],
    c: Literal[1, 2],
    d: Optional[Literal["x", "y"]] = None,
) -> Literal["done"]:
    """Literal values.

    Args:
        a: a drink
        b: a mixture
        c: a number (choices: [3, 4])
        d: maybe a letter
    """


def enums(a: Color, b: Level, c: Mixed, d: Flavour, e: list[Color], f: Color | None = None):
    """Enum classes.

    Args:
        a: a colour
        b: a level
        c: mixed values
        d: a str enum
        e: several colours
        f: an optional colour
    """


def choices(a: str, b: str, c: int, d: Any, e: str):
    """Choices blocks.

    Args:
        a: The beverage to drink (choices: ["tea", "coffee"])
        b: Case does not matter (CHOICES:[" padded ", "x"])  \t
        c: numbers (choices: [1, 2, 3])
        d: anything (choices: [null, true, {"k": 1}])
        e: choices that are not last (choices: ["a"]) then text
    """


def two_choice_blocks(f: str):
    """The first block runs to the last parenthesis, which is not JSON.

    Args:
        f: two blocks (choices: ["a"]) and (choices: ["b", "c"])
    """


def multiline(a: int, b: str, c: str = "x", d: int = 0):
    """Summary line that goes on
    over two lines.

    Args:
        a: first line
            continued deeper
              and deeper
        b:
            description on the next line
        c: text with    internal   spaces
        d: last one

    Returns:
        Something
        over two lines.

    Raises:
        ValueError: never
    """


def no_args() -> int:
    """Just a description."""
    return 1


def any_return(a: int) -> Any:
    """Returns anything.

    Args:
        a: a

    Returns:
        whatever it likes
    """


def custom_return(a: int) -> Custom:
    """The return hint cannot be converted, so it is left out.

    Args:
        a: a
    """
    return Custom()


def none_return_without_doc(a: int) -> None:
    """No Returns block.

    Args:
        a: a
    """


def varargs(a: int, *args: str, b: bool = True, **kwargs: float):
    """Star arguments.

    Args:
        a: a
        args: extra strings
        b: keyword-only flag
        kwargs: extra floats
    """


def typed_docstring(x: int):
    """Google style with a type in parentheses is not understood.

    Args:
        x (int): the x
    """


def missing_description(x: int, y: int):
    """Only x is documented.

    Args:
        x: the x
    """


def missing_hint(x, y: int):
    """Args:
    x: the x
    y: the y
    """


def no_docstring(x: int):
    return x


def custom_param(x: Custom):
    """Args:
    x: custom
    """


def set_param(x: set[int]):
    """Custom hint.

    Args:
        x: a set
    """


def callable_param(x: Callable[[int], int]):
    """Custom hint.

    Args:
        x: a callable
    """


def sequence_param(x: Sequence[int]):
    """Custom hint.

    Args:
        x: a sequence
    """


def one_tuple(x: tuple[int]):
    """Tuple of one.

    Args:
        x: a one-tuple
    """


def ellipsis_tuple(x: tuple[int, ...]):
    """Variable tuple.

    Args:
        x: a variadic tuple
    """


def bad_literal(x: Literal[Color.RED]):
    """Literal of an enum member.

    Args:
        x: the colour
    """


def empty_enum(x: Empty):
    """Enum with no members.

    Args:
        x: nothing
    """


def tuple_enum(x: Tupled):
    """Enum with tuple values.

    Args:
        x: pairs
    """


def nested_bad(x: list[dict[str, Custom]]):
    """Nested custom class.

    Args:
        x: deep
    """


def unresolvable(x: NotDefinedAnywhere):  # noqa: F821
    """Unresolvable annotation.

    Args:
        x: nope
    """


def bad_choices_json(x: str):
    """Invalid choices.

    Args:
        x: pick one (choices: [tea, coffee])
    """


def empty_choices(x: str):
    """Empty choices.

    Args:
        x: pick one (choices:)
    """


def string_choices(x: str):
    """A JSON string as choices is iterated character by character.

    Args:
        x: pick one (choices: "ab")
    """


def dict_choices(x: str):
    """A JSON object as choices gives its keys.

    Args:
        x: pick one (choices: {"a": 1, "b": 2})
    """


def int_choices(x: str):
    """A JSON number as choices cannot be iterated.

    Args:
        x: pick one (choices: 5)
    """


def args_at_start(x: int):
    """Args:
    x: the x
    """


def keywords_inside_text(x: int, y: int):
    """See the Returns: section for details on Args: usage.

    Args:
        x: mentions Raises: in the middle
        y: never documented because of the line above

    Returns:
        r
    """


def duplicated_arg(x: int):
    """Duplicates.

    Args:
        x: first
        x: second
    """


def indented_sections(x: int):
    """Weird indentation.

        Args:
    x: dedented arg
        Returns:
    dedented return
    """


def unicode_names(größe: int, ñ: str = "n"):  # noqa: PLC2401
    """Unicode parameter names.

    Args:
        größe: a size
        ñ: a letter
    """


def blank_lines(a: int, b: int):
    """Blank lines in the args block.

    Args:

        a: first


        b: second

    """


def tab_indented(a: int, b: int):
    """Tabs.

    Args:
    \ta: first
    \t\tstill first
    \tb: second
    """


def string_forward_ref(a: "int", b: "list[Color]"):  # noqa: UP037
    """Forward references.

    Args:
        a: an int
        b: colours
    """


def lambda_like(x: int):
    """Args:
    x: the x"""


def decorated_inner(a: int, b: str = "b") -> int:
    """Wrapped.

    Args:
        a: a
        b: b
    """
    return a


@functools.wraps(decorated_inner)
def decorated(*args: Any, **kwargs: Any) -> int:
    return decorated_inner(*args, **kwargs)


class Tools:
    def method(self, a: int, b: str = "x") -> bool:
        """A method.

        Args:
            a: a
            b: b
        """
        return True

    def annotated_self(self: Tools, a: int):
        """Self with a hint is a real parameter.

        Args:
            a: a
        """

    @classmethod
    def klass(cls, a: list[int]):
        """A classmethod.

        Args:
            a: ints
        """

    @staticmethod
    def static(a: int):
        """A staticmethod.

        Args:
            a: a
        """

    def undocumented(self, a: int):
        pass


class Child(Tools):
    def method(self, a: int, b: str = "x") -> bool:  # docstring inherited via inspect.getdoc
        return False


def receiver_named_cls(cls, a: int):
    """A plain function whose first parameter is called cls.

    Args:
        a: a
    """


def self_not_first(a: int, self):  # noqa: PLW0211
    """self elsewhere needs a hint.

    Args:
        a: a
        self: self
    """


TOOLS: list[Any] = [
    multiply,
    scalars,
    optionals,
    containers,
    literals,
    enums,
    choices,
    two_choice_blocks,
    multiline,
    no_args,
    any_return,
    custom_return,
    none_return_without_doc,
    varargs,
    typed_docstring,
    missing_description,
    missing_hint,
    no_docstring,
    custom_param,
    set_param,
    callable_param,
    sequence_param,
    one_tuple,
    ellipsis_tuple,
    bad_literal,
    empty_enum,
    tuple_enum,
    nested_bad,
    unresolvable,
    bad_choices_json,
    empty_choices,
    string_choices,
    dict_choices,
    int_choices,
    args_at_start,
    keywords_inside_text,
    duplicated_arg,
    indented_sections,
    unicode_names,
    blank_lines,
    tab_indented,
    string_forward_ref,
    lambda_like,
    decorated,
    Tools().method,
    Tools.method,
    Tools().annotated_self,
    Tools.klass,
    Tools().klass,
    Tools.static,
    Tools().undocumented,
    Child().method,
    receiver_named_cls,
    self_not_first,
    lambda x: x,
    functools.partial(multiply, 2.0),
    len,
    Custom,
]


@pytest.mark.parametrize(
    "func", TOOLS, ids=lambda func: getattr(func, "__name__", stable_repr(func))
)
def test_same_as_reference(func: Any) -> None:
    assert_same(func)


def test_known_answers() -> None:
    assert get_json_schema(multiply) == {
        "type": "function",
        "function": {
            "name": "multiply",
            "description": "A function that multiplies two numbers",
            "parameters": {
                "type": "object",
                "properties": {
                    "x": {"type": "number", "description": "The first number to multiply"},
                    "y": {"type": "number", "description": "The second number to multiply"},
                },
                "required": ["x", "y"],
            },
        },
    }
    props = get_json_schema(optionals)["function"]["parameters"]["properties"]
    assert props["a"] == {"type": "integer", "nullable": True, "description": "optional int"}
    assert props["g"]["type"] == "array"
    assert props["h"] == {
        "anyOf": [{"type": "string", "enum": ["x"]}, {"type": "integer"}],
        "description": "a literal or an int",
    }
    choice = get_json_schema(choices)["function"]["parameters"]["properties"]
    assert choice["b"]["enum"] == ["padded", "x"]
    assert choice["e"] == {
        "type": "string",
        "description": 'choices that are not last (choices: ["a"]) then text',
    }
    assert choice["d"]["enum"] == [None, True, {"k": 1}]


@pytest.mark.parametrize(
    ("func", "kind"),
    [
        (no_docstring, DocstringParsingException),
        (lambda x: x, DocstringParsingException),
        (missing_description, DocstringParsingException),
        (typed_docstring, DocstringParsingException),
        (Tools().undocumented, DocstringParsingException),
        (missing_hint, TypeHintParsingException),
        (custom_param, TypeHintParsingException),
        (one_tuple, TypeHintParsingException),
        (ellipsis_tuple, TypeHintParsingException),
        (empty_enum, TypeHintParsingException),
        (bad_choices_json, json.JSONDecodeError),
        (two_choice_blocks, json.JSONDecodeError),
        (int_choices, TypeError),
        (unresolvable, NameError),
    ],
)
def test_exceptions(func: Any, kind: type[BaseException]) -> None:
    with pytest.raises(kind):
        get_json_schema(func)


def test_exception_classes_are_plain_exceptions() -> None:
    for kind in (TypeHintParsingException, DocstringParsingException):
        assert kind.__bases__ == (Exception,)
        assert not issubclass(kind, ValueError | TypeError)


def test_schemas_are_fresh_objects() -> None:
    first = get_json_schema(enums)
    first["function"]["parameters"]["properties"]["a"]["enum"].append("blue")
    assert get_json_schema(enums) == reference.get_json_schema(enums)


# --- docstring parsing, compared piece by piece ----------------------------------------

DOC_WORDS = [
    "Args:", "Args:\n", "Returns:", "Returns:\n", "Raises:", "\n", "\n", "\n", " ", "  ",
    "\t", "x:", "y:", "x_1:", "é:", " desc", "more", "(choices: [1, 2])", "(CHOICES:", ")",
    "\xa0", "\u2028", "\x1c", "\r", "a b", ":", "    x: indented", "\n  ", "\n\t",
]  # fmt: skip


@settings(derandomize=True, deadline=None, max_examples=300)
@given(doc=st.lists(st.sampled_from(DOC_WORDS), max_size=20).map("".join))
def test_docstring_parsing_matches_reference(doc: str) -> None:
    ours = json_schema._parse_google_docstring(doc)
    theirs = reference.parse_google_format_docstring(doc)
    assert ours == theirs
    assert list(ours[1]) == list(theirs[1])


@settings(derandomize=True, deadline=None, max_examples=300)
@given(doc=st.text(alphabet="Ars:gRetun \n\txyé()\xa0", max_size=40))
def test_docstring_parsing_matches_reference_on_noise(doc: str) -> None:
    assert json_schema._parse_google_docstring(doc) == reference.parse_google_format_docstring(doc)


INDENTS = st.sampled_from(["", " ", "  ", "    ", "\t", " \t", "\xa0"])
TEXT_PIECES = st.sampled_from(
    ["desc", "two words", "", "x: y", "Returns: r", "Raises:", "é", "(choices: [1])", "\x1c"]
)


@st.composite
def google_docstrings(draw: st.DrawFn) -> str:
    """Docstrings shaped like the Google style, with formatting noise in every slot."""
    parts = [draw(TEXT_PIECES)]
    if draw(st.integers(0, 4)) > 0:
        parts.append(draw(st.sampled_from(["\n", "\n", "\n\n", " ", "\n \n"])))
        parts.append(draw(INDENTS) + draw(st.sampled_from(["Args:\n"] * 4 + ["Args: \n"])))
        for _ in range(draw(st.integers(1, 4))):
            indent = draw(st.sampled_from(["    ", "  "]) | INDENTS)
            parts.append(indent + draw(st.sampled_from(["x", "y", "x_1", "é", "a b"])))
            parts.append(draw(st.sampled_from([":", ": ", ": ", " :", ":\n"])))
            parts.append(draw(TEXT_PIECES))
            for _ in range(draw(st.integers(0, 2))):
                parts.append("\n" + draw(INDENTS) + draw(TEXT_PIECES))
            parts.append(draw(st.sampled_from(["\n", "\n", "\n\n", "\n  \n", " \n"])))
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["\n", "", "\n\n"])) + draw(INDENTS))
        parts.append(draw(st.sampled_from(["Returns:\n", "Returns:\n", "Returns:"])))
        parts.append(draw(INDENTS) + draw(TEXT_PIECES) + "\n" + draw(INDENTS) + draw(TEXT_PIECES))
    if draw(st.booleans()):
        parts.append("\n" + draw(INDENTS) + "Raises:\n" + draw(INDENTS) + draw(TEXT_PIECES))
    return "".join(parts)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(doc=google_docstrings())
def test_google_docstrings_match_reference(doc: str) -> None:
    ours = json_schema._parse_google_docstring(doc)
    theirs = reference.parse_google_format_docstring(doc)
    assert ours == theirs
    assert list(ours[1]) == list(theirs[1])


# --- generated functions --------------------------------------------------------------------

_GOOD_HINTS = [
    int, float, str, bool, type(None), Any, list, tuple, dict, Color, Level, Mixed, Flavour,
    typing.List, typing.Dict, typing.Tuple, Literal["a", 1], Literal[None],  # noqa: UP006
    Literal[True, 1.5], "int",
]  # fmt: skip
_BAD_HINTS = [Empty, Tupled, Custom, set, [int], ..., Literal]
# Mostly convertible leaves, so that the composite hints built on them often are too.
_BASE_HINTS = _GOOD_HINTS * 4 + _BAD_HINTS


def _combine(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    convertible = [
        children.map(lambda hint: list[hint]),
        children.map(lambda hint: typing.List[hint]),  # noqa: UP006
        children.map(lambda hint: Optional[hint]),
        st.tuples(children, children).map(lambda pair: Union[pair]),
        st.tuples(children, children, children).map(lambda three: Union[three]),
        st.tuples(children, children).map(lambda pair: tuple[pair]),
        children.map(lambda hint: dict[str, hint]),
        children.map(lambda hint: dict[hint]),
    ]
    rejected = [
        children.map(lambda hint: tuple[hint]),
        children.map(lambda hint: tuple[hint, ...]),
        children.map(lambda hint: set[hint]),
        children.map(lambda hint: Sequence[hint]),
    ]
    # Rejected shapes are drawn less often: one bad member spoils the whole hint.
    return st.one_of(*convertible, *convertible, *rejected)


def _usable(hint: Any) -> bool:
    try:
        Union[hint, int]  # noqa: B018
        list[hint]  # noqa: B018
    except TypeError:
        return False
    return True


HINTS = st.recursive(
    st.sampled_from(_BASE_HINTS),
    lambda children: _combine(children.filter(_usable)),
    max_leaves=5,
)

NAMES = ["a", "b", "cc", "self", "cls", "x_1"]


def _make_function(
    params: list[tuple[str, Any, bool, bool]], returns: Any, has_return: bool, doc: str | None
) -> Callable[..., Any]:
    """A function with the given (name, hint, annotated, has_default) parameters."""
    source = ", ".join(f"{name}=None" if default else name for name, _, _, default in params)
    namespace: dict[str, Any] = {}
    exec(f"def generated({source}):\n    pass\n", namespace)  # noqa: S102
    func = namespace["generated"]
    annotations = {name: hint for name, hint, annotated, _ in params if annotated}
    if has_return:
        annotations["return"] = returns
    func.__annotations__ = annotations
    func.__doc__ = doc
    return func


@st.composite
def functions(draw: st.DrawFn) -> Callable[..., Any]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    params = []
    seen_default = False
    for name in names:
        seen_default = seen_default or draw(st.booleans())
        hint = draw(HINTS)
        annotated = draw(st.integers(0, 19)) > 0
        params.append((name, hint, annotated, seen_default))
    lines = [draw(st.sampled_from(["Summary.", "", "Does Returns: things", "  Lead  "]))]
    documented = [name for name in names if draw(st.integers(0, 19)) > 0]
    if documented or draw(st.booleans()):
        lines.append(draw(st.sampled_from(["\nArgs:", "Args:", "\n  Args:", "\nArgs: "])))
        for name in documented:
            indent = draw(st.sampled_from(["    ", "  ", "\t", ""]))
            text = draw(
                st.sampled_from(
                    [
                        "desc",
                        "",
                        "two\n        lines",
                        'pick (choices: ["p", " q "])',
                        "n (choices: [1, 2.5, null])",
                        "bad (choices: [p])",
                        "odd (choices: 3)",
                    ]
                )
            )
            lines.append(f"{indent}{name}: {text}")
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["\nReturns:\n    r", "Returns:\n", "\nReturns: r"])))
    if draw(st.booleans()):
        lines.append("\nRaises:\n    ValueError: no")
    doc = draw(st.sampled_from([None, "", "   "]) | google_docstrings() | st.just("\n".join(lines)))
    has_return = draw(st.booleans())
    return _make_function(params, draw(HINTS), has_return, doc)


@settings(derandomize=True, deadline=None, max_examples=250)
@given(func=functions())
def test_generated_functions_match_reference(func: Callable[..., Any]) -> None:
    assert_same(func)


@settings(derandomize=True, deadline=None, max_examples=250)
@given(hint=HINTS)
def test_hint_schemas_match_reference(hint: Any) -> None:
    func = _make_function([("a", hint, True, False)], None, False, "D.\n\nArgs:\n    a: A")
    assert_same(func)

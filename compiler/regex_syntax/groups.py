"""Where a pattern's groups and alternatives are, and which groups every match sets."""

from __future__ import annotations

from . import nodes as n


def always_groups(tree: n.Tree) -> set[str]:
    """Names of the groups every match of the pattern sets (captures a value for).

    A match goes through every item of a sequence, through one branch of an alternation (so a
    group counts there only when every branch sets it: one name may be given in each), through
    a repeat's body at least ``low`` times, and through a positive look-around's body; a
    negative look-around never keeps a capture, and an optional part, a conditional's
    untaken branch, a call (its captures are the called group's business) and anything not
    modelled may set nothing.
    """
    numbers = _always(tree.root)
    return {name for name, number in tree.names.items() if number in numbers}


def _always(node: n.Node) -> set[int]:
    if isinstance(node, n.Seq):
        return set().union(*(_always(item) for item in node.items))
    if isinstance(node, n.Alt):
        sets = [_always(branch) for branch in node.branches]
        return set.intersection(*sets)
    if isinstance(node, n.Group):
        if node.kind in (n.NOT_AHEAD, n.NOT_BEHIND):
            return set()
        inner = _always(node.body)
        return inner | {node.number} if node.kind == n.CAPTURE else inner
    if isinstance(node, n.Repeat):
        return _always(node.body) if node.low > 0 else set()
    if isinstance(node, n.Cond):
        return _always(node.yes) & _always(node.no)
    return set()


def top_level_alternatives(tree: n.Tree) -> list[str]:
    """The source text of each top-level alternative (``a|b(c|d)`` gives a, b(c|d))."""
    if isinstance(tree.root, n.Alt):
        return [tree.source(branch) for branch in tree.root.branches]
    return [tree.pattern]


def group_body_span(tree: n.Tree, name: str) -> tuple[int, int] | None:
    """Where the body of the (first) group named ``name`` is written in the pattern, so that a
    suggestion can replace exactly that body and keep the rest of the pattern."""
    number = tree.names.get(name)
    if number is None:
        return None
    body = tree.groups[number].body
    return body.start, body.end


def without_names(tree: n.Tree) -> str:
    """The pattern with every named group made non-capturing (``(?P<n>x)`` → ``(?:x)``)."""
    out = []
    done = 0
    for node in n.walk(tree.root):
        if isinstance(node, n.Group) and node.name is not None:
            out += [tree.pattern[done : node.start], "(?:"]
            done = node.head
    return "".join(out) + tree.pattern[done:]

"""One GraphQL request, from its text to GitLab's answer: parse and validate (cached per text, as a
poller sends the same query again and again), coerce the variables, measure complexity and depth
against the caller's limits, execute.

Every answer is HTTP 200 with GitLab's body: ``{"data": …}``, with ``"errors": [{"message",
"locations", "path"}]`` beside it when a field failed, or only ``errors`` when the query could not
run (syntax, validation, variables, limits). The commonest validation errors are worded as
graphql-ruby words them (``Field 'x' doesn't exist on type 'Project'``, with its ``extensions``);
others keep graphql-core's words.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FragmentDefinitionNode,
    GraphQLError,
    OperationDefinitionNode,
    execute,
    get_operation_ast,
    parse,
    validate,
    value_from_ast_untyped,
)

from labdeck.sim.ci.engine import store
from labdeck.sim.core.state import SimState, User
from labdeck.sim.gql.cost import Measure, limits
from labdeck.sim.gql.data import Viewer
from labdeck.sim.gql.schema import schema

_CACHE_SIZE = 128
_documents: OrderedDict[str, tuple[DocumentNode | None, list[GraphQLError]]] = OrderedDict()


def _document(text: str) -> tuple[DocumentNode | None, list[GraphQLError]]:
    """The parsed and validated document of ``text`` (or its errors), from a small LRU cache."""
    cached = _documents.get(text)
    if cached is not None:
        _documents.move_to_end(text)
        return cached
    try:
        document: DocumentNode | None = parse(text)
    except GraphQLError as error:
        entry: tuple[DocumentNode | None, list[GraphQLError]] = (None, [error])
    else:
        assert document is not None
        entry = (document, list(validate(schema(), document)))
    _documents[text] = entry
    if len(_documents) > _CACHE_SIZE:
        _documents.popitem(last=False)
    return entry


_UNDEFINED_FIELD = re.compile(r"Cannot query field '([^']+)' on type '([^']+)'\..*")
_UNKNOWN_ARGUMENT = re.compile(r"Unknown argument '([^']+)' on field '[^'.]+\.([^']+)'\..*")


def _formatted(error: GraphQLError) -> dict[str, Any]:
    """graphql-core's error as GitLab (graphql-ruby) words the common validation errors."""
    body: dict[str, Any] = dict(error.formatted)
    field = _UNDEFINED_FIELD.fullmatch(error.message)
    if field is not None:
        name, owner = field.groups()
        body["message"] = f"Field '{name}' doesn't exist on type '{owner}'"
        body["extensions"] = {"code": "undefinedField", "typeName": owner, "fieldName": name}
    argument = _UNKNOWN_ARGUMENT.fullmatch(error.message)
    if argument is not None:
        name, owner = argument.groups()
        body["message"] = f"Field '{owner}' doesn't accept argument '{name}'"
        body["extensions"] = {"code": "argumentNotAccepted", "name": owner, "typeName": "Field",
                              "argumentName": name}
    return body


def _errors(errors: list[GraphQLError]) -> dict[str, Any]:
    return {"errors": [_formatted(error) for error in errors]}


@dataclass
class _Ready:
    """A query that parsed and validated, measured."""

    document: DocumentNode
    operation_name: str | None
    variables: dict[str, Any]
    complexity: int
    depth: int


def _prepare(query: str | None, variables: dict[str, Any] | None,
             operation_name: str | None) -> _Ready | dict[str, Any]:
    """The measured query, or the body that refuses it."""
    if not query or not query.strip():
        return {"errors": [{"message": "No query string was present"}]}
    document, problems = _document(query)
    if document is None or problems:
        return _errors(problems)
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        # Let execution word it ("Unknown operation named …", "Must provide operation name …").
        return _result(execute(schema(), document, operation_name=operation_name))
    given = variables or {}
    defaults = {definition.variable.name.value: value_from_ast_untyped(definition.default_value)
                for definition in operation.variable_definitions or () if definition.default_value is not None}
    complexity, depth = _measure(document, operation, {**defaults, **given})
    return _Ready(document, operation_name, given, complexity, depth)


Request = tuple[str | None, dict[str, Any] | None, str | None]
"""``(query, variables, operationName)``."""


def run(state: SimState, user: User | None, query: str | None, variables: dict[str, Any] | None,
        operation_name: str | None, base_url: str) -> dict[str, Any]:
    """GitLab's answer body to one query by ``user`` (None: anonymous)."""
    return run_many(state, user, [(query, variables, operation_name)], base_url)[0]


def run_many(state: SimState, user: User | None, requests: list[Request], base_url: str) -> list[dict[str, Any]]:
    """GitLab's answers to a multiplexed request (a JSON array of queries): the complexity limit
    holds for the queries together (graphql-ruby's ``multiplex(max_complexity:)``), the depth limit
    for each."""
    max_complexity, max_depth = limits(user is not None, bool(user is not None and user.is_admin))
    prepared = [_prepare(*request) for request in requests]
    total = sum(ready.complexity for ready in prepared if isinstance(ready, _Ready))
    answers = []
    for ready in prepared:
        if not isinstance(ready, _Ready):
            answers.append(ready)
            continue
        refused = []
        if ready.depth > max_depth:
            refused.append({"message": f"Query has depth of {ready.depth}, which exceeds max depth of {max_depth}"})
        if total > max_complexity:
            refused.append({"message": f"Query has complexity of {total}, which exceeds max complexity of "
                                       f"{max_complexity}"})
        if refused:
            answers.append({"errors": refused})
            continue
        viewer = Viewer(state, store(state), user, base_url, limit=max_complexity, score=total)
        answers.append(_result(execute(schema(), ready.document, context_value=viewer,
                                       variable_values=ready.variables, operation_name=ready.operation_name)))
    return answers


def _measure(document: DocumentNode, operation: OperationDefinitionNode, variables: dict[str, Any]) -> tuple[int, int]:
    fragments = {definition.name.value: definition for definition in document.definitions
                 if isinstance(definition, FragmentDefinitionNode)}
    return Measure(schema(), fragments, variables).operation(operation)


def _result(result: Any) -> dict[str, Any]:
    assert isinstance(result, ExecutionResult)
    body: dict[str, Any] = {}
    if result.errors:
        body["errors"] = [_formatted(error) for error in result.errors]
    body["data"] = result.data
    return body

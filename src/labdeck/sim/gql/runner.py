"""One GraphQL request, from its text to GitLab's answer: parse and validate (cached per text, as a
poller sends the same query again and again), coerce the variables, measure complexity and depth
against the caller's limits, execute.

Every answer is HTTP 200 with GitLab's body: ``{"data": …}``, with ``"errors": [{"message",
"locations", "path"}]`` beside it when a field failed, or only ``errors`` when the query could not
run (syntax, validation, variables, limits).
"""

from __future__ import annotations

from collections import OrderedDict
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


def _errors(errors: list[GraphQLError]) -> dict[str, Any]:
    return {"errors": [error.formatted for error in errors]}


def _message(text: str) -> dict[str, Any]:
    return {"errors": [{"message": text}]}


def run(state: SimState, user: User | None, query: str | None, variables: dict[str, Any] | None,
        operation_name: str | None, base_url: str) -> dict[str, Any]:
    """GitLab's answer body to one query by ``user`` (None: anonymous)."""
    if not query or not query.strip():
        return _message("No query string was present")
    document, problems = _document(query)
    if document is None or problems:
        return _errors(problems)
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        # Let execution word it ("Unknown operation named …", "Must provide operation name …").
        return _result(execute(schema(), document, operation_name=operation_name))
    max_complexity, max_depth = limits(user is not None, bool(user is not None and user.is_admin))
    complexity, depth = _measure(document, operation, variables or {})
    refused = []
    if depth > max_depth:
        refused.append({"message": f"Query has depth of {depth}, which exceeds max depth of {max_depth}"})
    if complexity > max_complexity:
        refused.append({"message": f"Query has complexity of {complexity}, which exceeds max complexity of "
                                   f"{max_complexity}"})
    if refused:
        return {"errors": refused}
    viewer = Viewer(state, store(state), user, base_url, limit=max_complexity, score=complexity)
    return _result(execute(schema(), document, context_value=viewer, variable_values=variables or {},
                           operation_name=operation_name))


def _measure(document: DocumentNode, operation: OperationDefinitionNode, variables: dict[str, Any]) -> tuple[int, int]:
    fragments = {definition.name.value: definition for definition in document.definitions
                 if isinstance(definition, FragmentDefinitionNode)}
    return Measure(schema(), fragments, variables).operation(operation)


def _result(result: Any) -> dict[str, Any]:
    assert isinstance(result, ExecutionResult)
    body: dict[str, Any] = {}
    if result.errors:
        body["errors"] = [error.formatted for error in result.errors]
    body["data"] = result.data
    return body

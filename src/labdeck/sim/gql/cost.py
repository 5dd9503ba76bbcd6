"""GitLab's limits on a query: complexity (200 anonymous, 250 signed in, 300 admin) and depth (10
anonymous, 15 signed in), from ``GitlabSchema``.

Complexity follows ``Types::BaseField``: a plain field costs 1 plus what it selects; a field with a
resolver (``projects``, ``project``, ``pipelines``, ``pipeline``, ``jobs``, ``currentUser``) costs
what it selects plus the resolver's own (1, +1 with ``sort``, +5 with ``search``), and, when it is a
connection, that much again times ``limit × 0.01``, where ``limit`` is the smallest of ``first``,
``last`` and the page size (100) (``complexity_multiplier``: 0 when ``iid``/``iids`` is given);
each resolver field's figure is truncated to an integer. So ``projects(first: 100)`` doubles what
its pages select. Fragments count where they are spread; ``__typename`` counts 1. Over the limit,
GitLab answers HTTP 200 with ``{"errors": [{"message": "Query has complexity of N, which exceeds
max complexity of M"}]}`` and runs nothing.
"""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    value_from_ast_untyped,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef

ANONYMOUS_COMPLEXITY = 200  # GitlabSchema::DEFAULT_MAX_COMPLEXITY
AUTHENTICATED_COMPLEXITY = 250
ADMIN_COMPLEXITY = 300
ANONYMOUS_DEPTH = 10  # GitlabSchema::DEFAULT_MAX_DEPTH
AUTHENTICATED_DEPTH = 15
PAGE_SIZE = 100

# Fields GitLab resolves with a resolver class (the rest are plain fields).
RESOLVED = frozenset({("Query", "projects"), ("Query", "project"), ("Query", "currentUser"),
                      ("Project", "pipelines"), ("Project", "pipeline"), ("Pipeline", "jobs")})
CONNECTIONS = frozenset({"ProjectConnection", "PipelineConnection", "CiJobConnection"})


def limits(signed_in: bool, admin: bool) -> tuple[int, int]:
    """``(max complexity, max depth)`` for a caller."""
    if admin:
        return ADMIN_COMPLEXITY, AUTHENTICATED_DEPTH
    if signed_in:
        return AUTHENTICATED_COMPLEXITY, AUTHENTICATED_DEPTH
    return ANONYMOUS_COMPLEXITY, ANONYMOUS_DEPTH


class Measure:
    """Complexity and depth of one operation, with its (coerced) variables."""

    def __init__(self, schema: GraphQLSchema, fragments: dict[str, FragmentDefinitionNode],
                 variables: dict[str, Any]) -> None:
        self.schema = schema
        self.fragments = fragments
        self.variables = variables

    def operation(self, operation: OperationDefinitionNode) -> tuple[int, int]:
        """``(complexity, depth)`` of ``operation``."""
        root = self.schema.get_root_type(operation.operation)
        if root is None:
            return 0, 0
        return self._selections(root, operation.selection_set, set())

    def _selections(self, owner: GraphQLObjectType | GraphQLInterfaceType, selection_set: SelectionSetNode | None,
                    seen: set[str]) -> tuple[int, int]:
        total, deepest = 0, 0
        if selection_set is None:
            return 0, 0
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                cost, depth = self._field(owner, selection, seen)
            elif isinstance(selection, InlineFragmentNode):
                target = owner
                if selection.type_condition is not None:
                    named = self.schema.get_type(selection.type_condition.name.value)
                    target = named if isinstance(named, GraphQLObjectType | GraphQLInterfaceType) else owner
                cost, depth = self._selections(target, selection.selection_set, seen)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = self.fragments.get(name)
                if fragment is None or name in seen:
                    continue
                named = self.schema.get_type(fragment.type_condition.name.value)
                target = named if isinstance(named, GraphQLObjectType | GraphQLInterfaceType) else owner
                cost, depth = self._selections(target, fragment.selection_set, seen | {name})
            else:  # pragma: no cover - no other selection kinds exist
                continue
            total += cost
            deepest = max(deepest, depth)
        return total, deepest

    def _definition(self, owner: GraphQLObjectType | GraphQLInterfaceType, name: str) -> GraphQLField | None:
        if name == "__typename":
            return TypeNameMetaFieldDef
        if name == "__schema" and owner is self.schema.query_type:
            return SchemaMetaFieldDef
        if name == "__type" and owner is self.schema.query_type:
            return TypeMetaFieldDef
        return owner.fields.get(name)

    def _field(self, owner: GraphQLObjectType | GraphQLInterfaceType, node: FieldNode,
               seen: set[str]) -> tuple[int, int]:
        definition = self._definition(owner, node.name.value)
        if definition is None:
            return 1, 1
        named = get_named_type(definition.type)
        child, depth = 0, 0
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            child, depth = self._selections(named, node.selection_set, seen)
        if (owner.name, node.name.value) not in RESOLVED:
            return 1 + child, depth + 1
        args = self._arguments(node)
        cost = float(child + 1 + (1 if args.get("sort") else 0) + (5 if args.get("search") else 0))
        if named.name in CONNECTIONS:
            sizes = [size for size in (args.get("first"), args.get("last"), PAGE_SIZE) if isinstance(size, int)]
            multiplier = 0.0 if "iid" in args or "iids" in args else 0.01
            cost += cost * min(sizes) * multiplier
        return int(cost), depth + 1

    def _arguments(self, node: FieldNode) -> dict[str, Any]:
        """The field's arguments as given (a bad one is reported by execution, not here)."""
        values: dict[str, Any] = {}
        for argument in node.arguments or ():
            if isinstance(argument.value, VariableNode):
                values[argument.name.value] = self.variables.get(argument.value.name.value)
            else:
                values[argument.name.value] = value_from_ast_untyped(argument.value, self.variables)
        return values

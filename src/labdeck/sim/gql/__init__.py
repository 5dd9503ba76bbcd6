"""GitLab's GraphQL API (``/api/graphql``), the subset a board needs, in the gitlab dialect.

:mod:`~labdeck.sim.gql.schema` holds the types (GitLab's names and shapes), :mod:`~labdeck.sim.gql.data`
their resolvers over the CI store, :mod:`~labdeck.sim.gql.cost` GitLab's complexity and depth limits,
and :mod:`~labdeck.sim.gql.runner` one request from text to answer. The HTTP side is
:mod:`labdeck.sim.routes.graphql_api`.
"""

"""The GraphQL schema: the part of GitLab's that a board reads, with GitLab's type, field, argument
and enum names (docs: GraphQL API reference, ``Query.projects``, ``Project.pipelines``,
``Pipeline``, ``CiJobConnection``, ``PipelineStatusEnum``, ``CiJobStatus``).

Built once from SDL with graphql-core; :func:`schema` attaches the resolvers of
:mod:`labdeck.sim.gql.data`, which turn statuses into enum names (``RUNNING``) and times into text
themselves, so that no scalar or enum hook of a particular graphql-core version is needed. Ids
are GitLab's global ids (``gid://gitlab/Project/1``, ``gid://gitlab/Ci::Pipeline/123``,
``gid://gitlab/Ci::Build/9``); ``Time`` is ISO 8601 in UTC (``2026-11-02T09:00:00Z``,
``Time#iso8601``); ``Duration`` is seconds (a float).
"""

from __future__ import annotations

import functools

from graphql import GraphQLObjectType, GraphQLSchema, build_schema

# Ci::HasStatus::AVAILABLE_STATUSES, upper-cased, for both enums (``value status.upcase``;
# Ci::Pipeline.all_state_names is the same list).
STATUSES = ("created", "waiting_for_resource", "preparing", "waiting_for_callback", "pending", "running",
            "success", "failed", "canceling", "canceled", "skipped", "manual", "scheduled")
_STATUS_VALUES = "\n  ".join(status.upper() for status in STATUSES)

SDL = f"""
scalar Time
scalar Duration

enum PipelineStatusEnum {{
  {_STATUS_VALUES}
}}

enum CiJobStatus {{
  {_STATUS_VALUES}
}}

enum PipelineScopeEnum {{
  RUNNING
  PENDING
  FINISHED
  BRANCHES
  TAGS
}}

type PageInfo {{
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
  endCursor: String
}}

type QueryComplexity {{
  limit: Int
  score: Int
}}

type CurrentUser {{
  id: ID!
  username: String!
  name: String!
}}

type Query {{
  currentUser: CurrentUser
  queryComplexity: QueryComplexity
  project(fullPath: ID!): Project
  projects(ids: [ID!], fullPaths: [String!], membership: Boolean, search: String, sort: String,
           after: String, before: String, first: Int, last: Int): ProjectConnection
}}

type ProjectConnection {{
  count: Int!
  edges: [ProjectEdge]
  nodes: [Project]
  pageInfo: PageInfo!
}}

type ProjectEdge {{
  cursor: String!
  node: Project
}}

type Project {{
  id: ID!
  fullPath: ID!
  path: String!
  name: String!
  nameWithNamespace: String!
  webUrl: String
  archived: Boolean
  createdAt: Time
  lastActivityAt: Time
  pipeline(iid: ID, id: ID, sha: String): Pipeline
  pipelines(status: PipelineStatusEnum, scope: PipelineScopeEnum, ref: String, sha: String, source: String,
            updatedAfter: Time, updatedBefore: Time, username: String,
            after: String, before: String, first: Int, last: Int): PipelineConnection
}}

type PipelineConnection {{
  count: Int!
  edges: [PipelineEdge]
  nodes: [Pipeline]
  pageInfo: PageInfo!
}}

type PipelineEdge {{
  cursor: String!
  node: Pipeline
}}

type Pipeline {{
  id: ID!
  iid: String!
  name: String
  status: PipelineStatusEnum!
  ref: String
  sha: String
  beforeSha: String
  source: String
  tag: Boolean!
  active: Boolean!
  warnings: Boolean!
  createdAt: Time!
  updatedAt: Time!
  startedAt: Time
  finishedAt: Time
  committedAt: Time
  duration: Int
  queuedDuration: Duration
  coverage: Float
  path: String
  project: Project
  jobs(statuses: [CiJobStatus!], retried: Boolean, after: String, before: String, first: Int, last: Int):
    CiJobConnection
}}

type CiJobConnection {{
  count(limit: Int = 1000): Int!
  edges: [CiJobEdge]
  nodes: [CiJob]
  pageInfo: PageInfo!
}}

type CiJobEdge {{
  cursor: String!
  node: CiJob
}}

type CiJob {{
  id: ID
  name: String
  status: CiJobStatus
  stage: CiStage
  allowFailure: Boolean!
  retried: Boolean
  active: Boolean!
  createdAt: Time!
  queuedAt: Time
  startedAt: Time
  finishedAt: Time
  duration: Int
  failureMessage: String
  webPath: String
}}

type CiStage {{
  name: String
}}
"""


@functools.cache
def schema() -> GraphQLSchema:
    """The schema with its resolvers, built once per process."""
    from labdeck.sim.gql import data

    built = build_schema(SDL)
    for (type_name, field_name), resolver in data.RESOLVERS.items():
        owner = built.type_map[type_name]
        assert isinstance(owner, GraphQLObjectType)
        owner.fields[field_name].resolve = resolver
    return built

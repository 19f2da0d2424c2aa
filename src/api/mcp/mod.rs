//! The MCP server: task-shaped tools over stdio and streamable HTTP (rmcp).
//!
//! Every read answers with an `Envelope` naming the commit it was served at; pages are
//! pinned by HMAC-sealed cursors; errors carry stable codes and name the argument at
//! fault; writes that remove data ask the person first. One JSON audit line per call
//! (tool, action, outcome, code, duration, approval; never argument values).

pub(crate) mod approval;
mod rdf;
mod schema;

use std::sync::Arc;
use std::time::Instant;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};

use crate::engine::Engine;
use crate::error::{ApiError, parse_args};
use crate::query::envelope::Envelope;

pub use crate::query::{Context, InspectArgs, QueryArgs, graph_name};
pub use crate::records::{CommitArgs, ConfigureArgs};
pub use rdf::RdfArgs;

/// What an HTTP caller's credentials allow (an API key's or an OAuth token's), put in
/// the request by the HTTP layer. Calls over stdio carry none: the person who started
/// the process has full access.
#[derive(Clone, Debug)]
pub struct McpAccess {
    pub rights: crate::api::access::Rights,
    /// Who is calling, for the audit line (`{"key"}`, `{"subject", "client"}` or null).
    pub who: serde_json::Value,
}

/// What a tool call was allowed after `check_access`.
#[derive(Clone, Debug)]
pub struct Granted {
    pub access: McpAccess,
    /// The admin right on the graph the call is about (control graphs, graph creation).
    pub admin: bool,
}

impl McpAccess {
    /// Every right: stdio, or HTTP without sign-in (loopback only).
    pub fn full() -> Self {
        Self {
            rights: crate::api::access::Rights::full(),
            who: serde_json::Value::Null,
        }
    }

    /// Whether the caller may see `graph` at all (listings leave the others out).
    pub fn sees(&self, graph: &str) -> bool {
        self.rights.sees(graph)
    }
}

/// The scope a tool call needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    Read,
    Write,
    Admin,
}

/// What the caller may do: the key's rights over HTTP, everything over stdio.
fn access_of(ctx: &RequestContext<RoleServer>) -> McpAccess {
    ctx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<McpAccess>())
        .cloned()
        .unwrap_or_else(McpAccess::full)
}

/// Checks the caller may do `what` (needing `need`) on `graph`, and returns its rights
/// for the work to carry on (writes pass `admin` to the engine).
async fn check_access(
    ctx: &RequestContext<RoleServer>,
    engine: &Arc<Engine>,
    graph: &str,
    need: Need,
    what: &str,
) -> Result<Granted, ApiError> {
    let access = access_of(ctx);
    let forbidden = |message: String, param: &str| ApiError {
        code: crate::error::ErrorCode::Forbidden,
        message,
        param: Some(param.into()),
        validation: None,
    };
    let right = match need {
        Need::Read => crate::api::access::Right::Read,
        Need::Write => crate::api::access::Right::Write,
        Need::Admin => crate::api::access::Right::Admin,
    };
    let credential = if access.who.get("subject").is_some() {
        "this access token"
    } else {
        "this API key"
    };
    for lower in [Need::Write, Need::Admin] {
        let scope = if lower == Need::Write {
            "write"
        } else {
            "admin"
        };
        let grant = if lower == Need::Write {
            &access.rights.write
        } else {
            &access.rights.admin
        };
        if need >= lower && !grant.any() {
            return Err(forbidden(
                format!("{credential} lacks the {scope} scope, which {what} needs"),
                "action",
            ));
        }
    }
    if !access.sees(graph) {
        return Err(forbidden(
            format!("{credential} may not access graph {graph:?}"),
            "graph",
        ));
    }
    if !access.rights.allows(right, Some(graph)) {
        return Err(forbidden(
            format!(
                "{credential} lacks the {} scope on graph {graph:?}, which {what} needs",
                right.name()
            ),
            "graph",
        ));
    }
    if need == Need::Read && !access.rights.sees_all() {
        // The engine's "not found" names every graph; a graph-limited key hears only of
        // its own. (Writes to a missing graph are refused as graph creation instead.)
        let engine = engine.clone();
        let existing = blocking(move || Ok(engine.graph_names())).await?;
        if !existing.iter().any(|g| g.as_str() == graph) {
            return Err(crate::engine::EngineError::GraphNotFound {
                name: graph.to_owned(),
                existing: existing
                    .iter()
                    .map(|g| g.as_str().to_owned())
                    .filter(|g| access.sees(g))
                    .collect(),
            }
            .into());
        }
    }
    let admin = access.rights.admin_on(graph);
    Ok(Granted { access, admin })
}

/// How a writing tool ends: with an answer, or (protocol 2026-07-28 and later) with a
/// question for the person that the client answers by retrying.
pub enum Step {
    Done(Envelope, Option<approval::ApprovedBy>),
    InputRequired(rmcp::model::InputRequiredResult),
}

/// The MCP server.
#[derive(Clone)]
pub struct StrataMcp {
    context: Arc<Context>,
    tool_router: ToolRouter<StrataMcp>,
}

#[tool_router]
impl StrataMcp {
    pub fn new(context: Arc<Context>) -> Self {
        Self {
            context,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "inspect",
        description = "Look at a graph before querying it; start with `guide`. Actions: `guide` (counts, main types, suggested calls), `graphs`, `publication` (head, index lag), `log` (commits, newest first), `commit` (one commit's quads), `entity` (a record's properties and incoming links), `ontology`, `history` (a record's changes by commit), `why` (the commits and evidence behind a link), `schema` (published SHACL shapes, mode), `conformance` (the graph's SHACL report). Example: {\"action\": \"guide\", \"graph\": \"main\"}",
        input_schema = schema::input_schema::<InspectArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = true, idempotent_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn inspect(
        &self,
        ctx: RequestContext<RoleServer>,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let started = Call::start(&ctx);
        let args: InspectArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish("inspect", "?", &started, Err(error))),
        };
        let action = format!("{:?}", args.action).to_lowercase();
        let context = self.context.clone();
        // `graphs` is about no one graph: it lists the ones the key may see.
        let checked = if args.action == crate::query::InspectAction::Graphs {
            Ok(access_of(&ctx))
        } else {
            check_access(
                &ctx,
                &self.context.engine,
                &graph_name(&args.graph),
                Need::Read,
                "inspect",
            )
            .await
            .map(|granted| granted.access)
        };
        let result = match checked {
            Err(error) => Err(error),
            Ok(access) => {
                blocking(move || crate::query::inspect::run(&context, args, &|g| access.sees(g)))
                    .await
            }
        };
        Ok(finish(
            "inspect",
            &action,
            &started,
            result.map(|e| (e, None)),
        ))
    }

    #[tool(
        name = "query",
        description = "Read a graph. Every answer names the commit read (`served_at_seq`: cite it); `as_of_commit_seq` reads an earlier one, `min_commit_seq` waits for one written elsewhere. A `next` holds the exact arguments of the next page. Modes: `sparql` (SELECT, ASK, CONSTRUCT, DESCRIBE); `structured` (a JSON query); `traverse` (a pipeline of steps); `search` (records nearest to `text`, with `filters`); `names` (a name → records); `describe` (what instances of a `class` hold, or a `property` links); `analyze` (counts `by` type, relation or structured, with a Vega-Lite chart); `commit_at` (a date → the head then); `compare` (`sparql` at `from` and `to` → rows added, removed, changed by `key`); `paths` (`source` to `target`); `neighborhood` (around `source`). Structured: {\"patterns\": [{\"subject\": {\"var\": \"t\"}, \"predicate\": \"REPORTED_AS\", \"object\": {\"var\": \"b\"}}], \"filters\": [{\"op\": \"ge\", \"left\": {\"field\": {\"var\": \"b\", \"name\": \"severity\"}}, \"right\": {\"value\": 2}}], \"group_by\": [\"b\"], \"aggregates\": [{\"func\": \"count\", \"as\": \"n\"}]}; terms {\"var\"}, {\"type\", \"name\"}, {\"iri\"}, {\"value\", \"datatype\"|\"lang\"}. Traverse: {\"steps\": [{\"from_type\": \"Ticket\"}, {\"filter\": {\"properties\": [[{\"field\": \"status\", \"op\": \"==\", \"value\": \"open\"}]]}}, {\"out\": \"REPORTED_AS\"}], \"fields\": [\"severity\"]}. Examples: {\"mode\": \"search\", \"text\": \"users cannot sign in\", \"top_k\": 5}; {\"mode\": \"sparql\", \"sparql\": \"SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 50\"}; {\"mode\": \"names\", \"name\": \"t-1002\"}; {\"mode\": \"paths\", \"source\": {\"iri\": \"http://example.org/support/t-1002\"}, \"target\": {\"iri\": \"http://example.org/support/r2-4-1\"}}",
        input_schema = schema::input_schema::<QueryArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = true, idempotent_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn query(
        &self,
        ctx: RequestContext<RoleServer>,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let started = Call::start(&ctx);
        let args: QueryArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish("query", "?", &started, Err(error))),
        };
        let action = format!("{:?}", args.mode).to_lowercase();
        let context = self.context.clone();
        // An MCP cancellation (notifications/cancelled) stops the evaluation.
        let cancellation = crate::sparql::CancellationToken::new();
        let watcher = {
            let (request_token, cancellation) = (ctx.ct.clone(), cancellation.clone());
            tokio::spawn(async move {
                request_token.cancelled().await;
                cancellation.cancel();
            })
        };
        let result = match check_access(
            &ctx,
            &self.context.engine,
            &graph_name(&args.graph),
            Need::Read,
            "query",
        )
        .await
        {
            Err(error) => Err(error),
            Ok(_) => blocking(move || crate::query::run(&context, args, cancellation)).await,
        };
        watcher.abort();
        Ok(finish(
            "query",
            &action,
            &started,
            result.map(|e| (e, None)),
        ))
    }

    #[tool(
        name = "rdf",
        description = "Write RDF; one call is one commit. `import` parses `content` (turtle, trig, ntriples, nquads, rdfxml, jsonld; ≤ 16 MiB); `update` runs a SPARQL Update. An update that removes data asks the person first; without a way to ask it fails with `approval_required`, writing nothing. Example: {\"action\": \"update\", \"sparql\": \"INSERT DATA { <http://example.org/a> <http://example.org/knows> <http://example.org/b> }\"}",
        input_schema = schema::input_schema::<RdfArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = false, idempotent_hint = false, destructive_hint = true, open_world_hint = false)
    )]
    async fn rdf(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(responses): InputResponses,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Call::start(&ctx);
        let args: RdfArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish_step("rdf", "?", &started, Err(error))),
        };
        let action = format!("{:?}", args.action).to_lowercase();
        let retry = approval::Retry {
            request_state,
            responses,
        };
        let result = match check_access(
            &ctx,
            &self.context.engine,
            &graph_name(&args.graph),
            Need::Write,
            "rdf",
        )
        .await
        {
            Err(error) => Err(error),
            Ok(access) => rdf::run(&self.context, &ctx, args, retry, access.admin).await,
        };
        Ok(finish_step("rdf", &action, &started, result))
    }

    #[tool(
        name = "commit",
        description = "Write records against the ontology (see `configure`); one call is one commit; a retry (same content, no commit since) returns it. `triplets` add links (with optional `evidence`, `confidence`, `valid_time`); `entity_properties` set field values; `retract_edges` and `retract_entities` remove (asks the person first). Records are {type, name}, {type, key} or {key}. `dry_run` shows the change and its SHACL report. Under `reject` shapes a violating commit fails with `shacl_violation` and the report; under `warn` it lands with the report. Example: {\"triplets\": [{\"source\": {\"type\": \"Bug\", \"name\": \"BUG-7\"}, \"relation\": \"FIXED_IN\", \"target\": {\"type\": \"Release\", \"name\": \"2.1\"}}]}",
        input_schema = schema::input_schema::<CommitArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = false, idempotent_hint = true, destructive_hint = true, open_world_hint = false)
    )]
    async fn commit(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(responses): InputResponses,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Call::start(&ctx);
        let args: CommitArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish_step("commit", "?", &started, Err(error))),
        };
        let action = if args.dry_run { "dry_run" } else { "write" };
        let retry = approval::Retry {
            request_state,
            responses,
        };
        let result = self.write(&ctx, retry, args, "commit").await;
        Ok(finish_step("commit", action, &started, result))
    }

    #[tool(
        name = "configure",
        description = "Define the ontology `commit` writes against (RDFS/OWL triples in the graph, versioned like data). `define_ontology` adds `types`, `relations` and `fields` (idempotent). `evolve_ontology` applies `changes` and new definitions; data follows renames and value-type changes; removals and narrowings ask the person; a change that conflicts with data fails with `ontology_conflict`. `publish_schema` publishes SHACL `shapes` in `desired_mode` warn (violations reported) or reject (violating commits fail). `dry_run` reports changes and conflicts without writing. Example: {\"action\": \"define_ontology\", \"types\": [{\"name\": \"Bug\"}, {\"name\": \"Release\"}], \"relations\": [{\"name\": \"FIXED_IN\", \"domain\": \"Bug\", \"range\": \"Release\", \"cardinality\": \"one\"}], \"fields\": [{\"name\": \"severity\", \"type\": \"Bug\", \"value_type\": \"i64\"}]}",
        input_schema = schema::input_schema::<ConfigureArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = false, idempotent_hint = false, destructive_hint = true, open_world_hint = false)
    )]
    async fn configure(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(responses): InputResponses,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Call::start(&ctx);
        let args: ConfigureArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish_step("configure", "?", &started, Err(error))),
        };
        let action = format!("{:?}", args.action).to_lowercase();
        let retry = approval::Retry {
            request_state,
            responses,
        };
        let what = match args.action {
            crate::records::ontology::ConfigureAction::PublishSchema => {
                "configure action publish_schema"
            }
            _ => "configure",
        };
        let result = self.write(&ctx, retry, args, what).await;
        Ok(finish_step("configure", &action, &started, result))
    }

    #[tool(
        name = "embeddings",
        description = "Make a class searchable by meaning and keywords, then search it with `query` mode `search` or `search:` patterns in SPARQL. `declare`: `class` (an ontology type or any class IRI) and `from` (the fields and links that make a record's text); versioned in the log, indexed in the background. `list` (indexes: state, progress, lag), `get`, `preview` (sample records' text), `refresh` (re-embed), `delete` (asks the person). Example: {\"action\": \"declare\", \"class\": \"http://example.org/support/Ticket\", \"from\": [\"http://www.w3.org/2000/01/rdf-schema#label\", \"http://example.org/support/reportedAs\"]}",
        input_schema = schema::input_schema::<crate::query::search::EmbeddingsArgs>(),
        output_schema = schema::output_schema(),
        annotations(read_only_hint = false, idempotent_hint = true, destructive_hint = true, open_world_hint = false)
    )]
    async fn embeddings(
        &self,
        ctx: RequestContext<RoleServer>,
        RequestState(request_state): RequestState,
        InputResponses(responses): InputResponses,
        Parameters(raw): Parameters<JsonObject>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Call::start(&ctx);
        let args: crate::query::search::EmbeddingsArgs = match parse_args(raw) {
            Ok(args) => args,
            Err(error) => return Ok(finish_step("embeddings", "?", &started, Err(error))),
        };
        let action = format!("{:?}", args.action).to_lowercase();
        // Declarations live in a control graph and decide what gets indexed: changing
        // them (or rebuilding an index) is the admin's; reading them is anyone's.
        let need = match args.action {
            crate::query::search::EmbeddingsAction::List
            | crate::query::search::EmbeddingsAction::Get
            | crate::query::search::EmbeddingsAction::Preview => Need::Read,
            crate::query::search::EmbeddingsAction::Declare
            | crate::query::search::EmbeddingsAction::Delete
            | crate::query::search::EmbeddingsAction::Refresh => Need::Admin,
        };
        let what = format!("embeddings action {action}");
        let access = match check_access(
            &ctx,
            &self.context.engine,
            &graph_name(&args.graph),
            need,
            &what,
        )
        .await
        {
            Ok(access) => access,
            Err(error) => return Ok(finish_step("embeddings", &action, &started, Err(error))),
        };
        let mut approved_by = None;
        if args.action == crate::query::search::EmbeddingsAction::Delete {
            let graph = graph_name(&args.graph);
            let index = args.name.clone().unwrap_or_default();
            let text = format!(
                "Delete the search index \"{index}\" of graph \"{graph}\"? Its declaration is removed in a new commit (history keeps it) and its index files are deleted; searches over it stop working."
            );
            let question = approval::Question::about(
                &graph,
                "Deleting a search index",
                text,
                &["embeddings.delete", &graph, &index],
            );
            let retry = approval::Retry {
                request_state,
                responses,
            };
            match approval::ask(&ctx, &self.context, question, retry).await {
                Ok(approval::Approval::Approved(by)) => approved_by = Some(by),
                Ok(approval::Approval::InputRequired(result)) => {
                    return Ok(finish_step(
                        "embeddings",
                        &action,
                        &started,
                        Ok(Step::InputRequired(result)),
                    ));
                }
                Err(error) => return Ok(finish_step("embeddings", &action, &started, Err(error))),
            }
        }
        let context = self.context.clone();
        let changes_searchable = matches!(
            args.action,
            crate::query::search::EmbeddingsAction::Declare
                | crate::query::search::EmbeddingsAction::Delete
        );
        let admin = access.admin;
        let result = blocking(move || crate::query::search::embeddings(&context, &args, admin))
            .await
            .map(|envelope| Step::Done(envelope, approved_by));
        if changes_searchable && result.is_ok() {
            // The `query` description lists what is searchable: tell the client to re-list.
            let _ = ctx.peer.notify_tool_list_changed().await;
        }
        Ok(finish_step("embeddings", &action, &started, result))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for StrataMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
            .with_server_info(Implementation::new("strata", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Strata is a knowledge graph with commit history. Start with `inspect` (action `guide`), read with `query` (mode `sparql`, or mode `search` to find records by meaning), define record types with `configure`, write records with `commit` or RDF with `rdf`, make classes searchable with `embeddings`. Every answer names the commit it was read at (`served_at_seq`); cite it, and pin follow-up reads with `as_of_commit_seq` to get the same answer forever.",
            )
    }

    /// The tools, with the `query` description naming what is searchable right now (the
    /// declared classes, their filterable fields with types and real example values), so
    /// an agent needs no configuration to search.
    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, ErrorData> {
        let engine = self.context.engine.clone();
        let access = access_of(&context);
        let searchable = tokio::task::spawn_blocking(move || {
            crate::query::search::searchable_summary(&engine, |graph| access.sees(graph))
        })
        .await
        .unwrap_or_default();
        let mut tools = self.tool_router.list_all();
        if !searchable.is_empty() {
            for tool in &mut tools {
                if tool.name == "query" {
                    let base = tool.description.clone().unwrap_or_default();
                    tool.description = Some(format!("{base} {searchable}").into());
                }
            }
        }
        let supports_cache_hints = context
            .protocol_version()
            .is_some_and(|version| version >= rmcp::model::ProtocolVersion::V_2026_07_28);
        Ok(rmcp::model::ListToolsResult {
            result_type: Some(rmcp::model::ResultType::COMPLETE),
            tools,
            meta: None,
            next_cursor: None,
            ttl_ms: supports_cache_hints.then_some(0),
            cache_scope: supports_cache_hints.then_some(rmcp::model::CacheScope::Public),
        })
    }

    /// rmcp hands over as a custom request any request whose params it cannot read,
    /// `tools/call` with non-object `arguments` included (it would answer -32601, method
    /// not found). A tool call gets the coded `invalid_argument` every other bad argument
    /// gets, as the tool's error result; anything else stays "method not found".
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if request.method != "tools/call" {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        let params = request.params.unwrap_or_default();
        let (tool, problem) = unreadable_tool_call(&params);
        let result = finish(
            &tool,
            "",
            &Call::start(&context),
            Err(ApiError::invalid_argument(problem.0, problem.1)),
        );
        Ok(rmcp::model::CustomResult::new(
            serde_json::to_value(result).unwrap_or_default(),
        ))
    }
}

/// The tool a `tools/call` that rmcp could not read names, and what is wrong with it
/// (the argument and why): `arguments` not an object, or `name` missing or not a string.
fn unreadable_tool_call(params: &serde_json::Value) -> (String, (&'static str, String)) {
    let tool = params
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or_default()
        .to_owned();
    let kind = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    };
    let problem = match (params.get("name"), params.get("arguments")) {
        (Some(serde_json::Value::String(_)), Some(arguments)) if !arguments.is_object() => (
            "arguments",
            format!(
                "the tool's arguments must be a JSON object (its parameters by name), not {}",
                kind(arguments)
            ),
        ),
        (Some(serde_json::Value::String(_)), _) => (
            "params",
            "the tools/call params could not be read: `name` is a string, `arguments` an \
             object"
                .to_owned(),
        ),
        (Some(name), _) => (
            "name",
            format!("the tool's name must be a string, not {}", kind(name)),
        ),
        (None, _) => ("name", "the tool to call is missing (`name`)".to_owned()),
    };
    (tool, problem)
}

impl StrataMcp {
    /// A `commit` or `configure` call: access checked (writes; publishing shapes needs
    /// the admin scope), then the approved `write`.
    async fn write<A: crate::records::WriteArgs>(
        &self,
        ctx: &RequestContext<RoleServer>,
        retry: approval::Retry,
        mut args: A,
        what: &str,
    ) -> Result<Step, ApiError> {
        let need = if args.needs_admin() {
            Need::Admin
        } else {
            Need::Write
        };
        let graph = graph_name(args.graph_mut());
        let access = check_access(ctx, &self.context.engine, &graph, need, what).await?;
        let engine = self.context.engine.clone();
        let existed = engine.graph_names().iter().any(|g| g.as_str() == graph);
        let rights = access.access.rights.clone();
        let result = write(&self.context, ctx, retry, move || {
            args.prepare(&engine, access.admin)
        })
        .await;
        // The engine's "not found" names every graph; a graph-limited caller hears only
        // of its own.
        let result = result.map_err(|error| {
            if error.code != crate::error::ErrorCode::GraphNotFound || rights.sees_all() {
                return error;
            }
            crate::engine::EngineError::GraphNotFound {
                name: graph.clone(),
                existing: self
                    .context
                    .engine
                    .graph_names()
                    .iter()
                    .map(|g| g.as_str().to_owned())
                    .filter(|g| rights.sees(g))
                    .collect(),
            }
            .into()
        });
        // A write that created the graph and then failed (or committed nothing) leaves
        // no empty graph behind.
        if !existed {
            let engine = self.context.engine.clone();
            let _ = blocking(move || Ok(engine.discard_if_unused_and_empty(&graph))).await;
        }
        result
    }
}

/// A write of the domain: prepared on a blocking thread, its removal (if any) approved by
/// the person (elicitation, `approval::ask`), then committed on a blocking thread. (HTTP
/// and the CLI approve their own requests: `records::commit_as_requested`.)
async fn write<W: crate::records::Write + Send + 'static>(
    context: &Context,
    request: &RequestContext<RoleServer>,
    retry: approval::Retry,
    prepare: impl FnOnce() -> Result<crate::records::Prepared<W>, ApiError> + Send + 'static,
) -> Result<Step, ApiError> {
    use crate::records::{Approved, Prepared};
    let (removal, write) = match blocking(prepare).await? {
        Prepared::Answered(envelope) => return Ok(Step::Done(envelope, None)),
        Prepared::Ready { removal, write } => (removal, write),
    };
    // The commit then removes nothing the person was not shown.
    let approved = Approved {
        by_person: true,
        author: Some("mcp".into()),
    };
    let approved_by = match &removal {
        None => None,
        Some(removal) => {
            let question = approval::Question::for_removal(removal);
            match approval::ask(request, context, question, retry).await? {
                approval::Approval::Approved(by) => Some(by),
                approval::Approval::InputRequired(result) => {
                    return Ok(Step::InputRequired(result));
                }
            }
        }
    };
    let envelope = blocking(move || write.commit(&approved)).await?;
    Ok(Step::Done(envelope, approved_by))
}

/// Runs synchronous engine work on a blocking thread (the engine never runs on the
/// async executor).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|_| {
        Err(ApiError {
            code: crate::error::ErrorCode::Internal,
            message: "the tool's worker failed".into(),
            param: None,
            validation: None,
        })
    })
}

/// A tool call under way: when it started and who made it (for the audit line).
struct Call {
    started: Instant,
    who: serde_json::Value,
}

impl Call {
    fn start(ctx: &RequestContext<RoleServer>) -> Self {
        Self {
            started: Instant::now(),
            who: access_of(ctx).who,
        }
    }

    fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }
}

/// Like `finish`, for tools that may end with a question (`Step::InputRequired`).
fn finish_step(
    tool: &str,
    action: &str,
    started: &Call,
    result: Result<Step, ApiError>,
) -> CallToolResponse {
    match result {
        Ok(Step::InputRequired(question)) => {
            let audit = serde_json::json!({
                "audit": "mcp_tool_call",
                "tool": tool,
                "action": action,
                "outcome": "input_required",
                "code": null,
                "duration_ms": (started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0,
                "approval": "asked",
                "caller": started.who,
            });
            tracing::info!(target: "strata::audit", "{audit}");
            CallToolResponse::InputRequired(question)
        }
        Ok(Step::Done(envelope, approved)) => {
            CallToolResponse::Complete(finish(tool, action, started, Ok((envelope, approved))))
        }
        Err(error) => CallToolResponse::Complete(finish(tool, action, started, Err(error))),
    }
}

/// Turns an outcome into the tool result and writes the audit line.
fn finish(
    tool: &str,
    action: &str,
    started: &Call,
    result: Result<(Envelope, Option<&'static str>), ApiError>,
) -> CallToolResult {
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (outcome, code, approval, response) = match result {
        Ok((envelope, approval)) => {
            let value = serde_json::to_value(&envelope).unwrap_or_default();
            ("ok", None, approval, CallToolResult::structured(value))
        }
        Err(mut error) => {
            // Engine errors name the HTTP/CLI parameter; tools call it differently. (An
            // `invalid_argument` about `as_of` is about the `query` tool's own old
            // spelling of `valid_at`.)
            if error.param.as_deref() == Some("as_of")
                && error.code == crate::error::ErrorCode::CommitNotFound
            {
                error.param = Some("as_of_commit_seq".into());
            }
            let code = error.code.as_str();
            let mut body = serde_json::json!({
                "type": error.code.kind(),
                "code": code,
                "message": error.message,
            });
            if let Some(param) = &error.param {
                body["param"] = param.clone().into();
            }
            if let Some(hint) = hint(&error) {
                body["hint"] = hint.into();
            }
            if let Some(validation) = &error.validation {
                body["report"] = crate::report::validation_json(validation);
            }
            (
                "error",
                Some(code),
                None,
                CallToolResult::structured_error(serde_json::json!({ "error": body })),
            )
        }
    };
    let audit = serde_json::json!({
        "audit": "mcp_tool_call",
        "tool": tool,
        "action": action,
        "outcome": outcome,
        "code": code,
        "duration_ms": (duration_ms * 100.0).round() / 100.0,
        "approval": approval,
        "caller": started.who,
    });
    tracing::info!(target: "strata::audit", "{audit}");
    response
}

fn hint(error: &ApiError) -> Option<&'static str> {
    use crate::error::ErrorCode::*;
    match error.code {
        GraphNotFound => Some("call inspect with action `graphs` to list graphs"),
        InvalidSparql => {
            Some("fix the query at the line and column given; prefixes must be declared")
        }
        CursorMismatch => Some("pass the exact arguments from the previous answer's `next`"),
        QueryTimeout | QueryMemoryLimit => {
            Some("narrow the query (more selective patterns, LIMIT) and try again")
        }
        QueryTooComplex => Some(
            "split the query: fewer nested brackets, fewer UNION/OPTIONAL/FILTER, VALUES instead of long UNION or || chains",
        ),
        ApprovalRequired => Some(
            "ask the person to run this from a client that supports elicitation, or the operator to set STRATA_DESTRUCTIVE=allow",
        ),
        ApprovalDeclined => Some("do not retry unless the person asks for it"),
        _ => None,
    }
}

/// Serves MCP over stdio until the client closes it.
pub async fn serve_stdio(context: Arc<Context>) -> std::io::Result<()> {
    let service = StrataMcp::new(context)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    service.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

/// The streamable HTTP transport, to nest at `/mcp` in the HTTP router.
pub fn http_service(
    context: Arc<Context>,
    allowed_hosts: Vec<String>,
    body_limit: usize,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    StrataMcp,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = allowed_hosts;
    config.max_request_body_bytes = body_limit;
    StreamableHttpService::new(
        move || Ok(StrataMcp::new(context.clone())),
        Default::default(),
        config,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool's name, description, schemas and annotations, as clients see them.
    fn contract() -> String {
        let tools = StrataMcp::tool_router().list_all();
        let mut tools: Vec<serde_json::Value> = tools
            .iter()
            .map(|tool| serde_json::to_value(tool).unwrap_or_default())
            .collect();
        tools.sort_by_key(|tool| tool["name"].as_str().unwrap_or_default().to_owned());
        serde_json::to_string_pretty(&tools).unwrap_or_default() + "\n"
    }

    /// Every agent pays for the whole `tools/list` answer before its first call: the
    /// static part (before the searchable classes are named) stays under 23,500 bytes, so
    /// the answer with a few searchable classes stays under 24 KB.
    #[test]
    fn tool_list_stays_within_its_budget() {
        let tools = StrataMcp::tool_router().list_all();
        let bytes = serde_json::to_vec(&tools).unwrap().len();
        assert!(
            bytes <= 23_500,
            "tools/list is {bytes} bytes, over its 23,500-byte budget: shorten descriptions"
        );
        for tool in &tools {
            let schemas =
                serde_json::to_string(&(&tool.input_schema, &tool.output_schema)).unwrap();
            assert!(
                !schemas.contains("\"format\":\"uint") && !schemas.contains("\"format\":\"int"),
                "{} declares a non-standard format",
                tool.name
            );
        }
    }

    /// The tool contract is a reviewed file: a change to a tool's name, description,
    /// schema or annotations must update `contract.json` in the same commit. Run with
    /// `STRATA_UPDATE_CONTRACT=1` to rewrite it, then review the diff.
    #[test]
    fn tool_contract_matches_the_reviewed_snapshot() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api/mcp/contract.json");
        let current = contract();
        if std::env::var_os("STRATA_UPDATE_CONTRACT").is_some() {
            std::fs::write(&path, &current).unwrap();
        }
        let reviewed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            reviewed == current,
            "the MCP tool contract changed; review it and run with STRATA_UPDATE_CONTRACT=1 to accept (digest now {})",
            crate::query::envelope::args_digest(&[&current])
        );
        let tools: serde_json::Value = serde_json::from_str(&current).unwrap();
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "commit",
                "configure",
                "embeddings",
                "inspect",
                "query",
                "rdf"
            ]
        );
        for tool in tools.as_array().unwrap() {
            assert!(
                tool["outputSchema"].is_object(),
                "{} has an output schema",
                tool["name"]
            );
            assert!(
                tool["description"].as_str().unwrap().contains("Example"),
                "{} shows an example",
                tool["name"]
            );
        }
    }
}

//! The `rdf` tool: import RDF documents and run SPARQL 1.1 Updates, each as one commit.
//! Updates that remove data ask the person first (see `approval`).

use rmcp::model::ProgressNotificationParam;
use rmcp::service::{RequestContext, RoleServer};
use rustc_hash::FxHashSet;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Context, Step, approval, blocking, graph_name};
use crate::engine::{CommitOutcome, CommitRequest, ImportFormat, ImportOptions};
use crate::error::{ApiError, ErrorCode};
use crate::model::NamedNode;

/// How long an import answered with progress waits after its last progress notification
/// before its result (see `import`).
const PROGRESS_SETTLE: std::time::Duration = std::time::Duration::from_millis(25);
use crate::query::envelope::Envelope;
use crate::sparql::UpdateOptions;

/// Largest document the `import` action takes inline.
pub const IMPORT_LIMIT_BYTES: usize = 16 << 20;

/// Arguments of the `rdf` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RdfArgs {
    pub action: RdfAction,
    #[serde(default)]
    pub graph: Option<String>,
    /// `import`: the document text.
    #[serde(default)]
    pub content: Option<String>,
    /// `import`: turtle, trig, ntriples, nquads, rdfxml or jsonld.
    #[serde(default)]
    pub format: Option<String>,
    /// `import`: for relative IRIs.
    #[serde(default)]
    pub base_iri: Option<String>,
    /// `import`: the named graph for the document's triples.
    #[serde(default)]
    pub into_graph: Option<String>,
    /// `update`: the SPARQL Update.
    #[serde(default)]
    pub sparql: Option<String>,
    /// A retry with the same key returns the first commit.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Commit message.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RdfAction {
    /// Parse a document and commit its quads.
    Import,
    /// Run a SPARQL 1.1 Update as one commit.
    Update,
}

fn outcome_envelope(graph: &str, outcome: &CommitOutcome, what: &str) -> Envelope {
    let summary = match outcome.commit_seq {
        Some(seq) if outcome.idempotent_replay => {
            format!("{what}: already done as commit {seq} of graph {graph} (idempotent replay)")
        }
        Some(seq) => format!(
            "{what}: commit {seq} of graph {graph} (+{} -{} quads)",
            outcome.inserted, outcome.deleted
        ),
        None => format!(
            "{what}: nothing changed; graph {graph} stays at commit {}",
            outcome.head_seq
        ),
    };
    Envelope::new(
        summary,
        json!({
            "commit_seq": outcome.commit_seq,
            "head_seq": outcome.head_seq,
            "hash": outcome.hash.map(|h| h.to_hex()),
            "inserted": outcome.inserted,
            "deleted": outcome.deleted,
            "idempotent_replay": outcome.idempotent_replay,
            "validation": outcome.validation.as_deref().map(crate::report::validation_json),
        }),
        outcome.head_seq,
    )
}

fn request(args: &RdfArgs, admin: bool) -> CommitRequest {
    CommitRequest {
        author: Some("mcp".into()),
        message: args.message.clone(),
        observed_at: None,
        idempotency_key: args.idempotency_key.clone(),
        admin,
        forward_id: None,
    }
}

/// Runs the tool: blocking engine work on blocking threads, approval in between. `admin`:
/// the caller holds the admin scope (may create the graph, change control graphs).
pub async fn run(
    ctx: &Context,
    request_ctx: &RequestContext<RoleServer>,
    args: RdfArgs,
    retry: approval::Retry,
    admin: bool,
) -> Result<Step, ApiError> {
    // An argument of the other action is refused, never ignored: an update given
    // `into_graph` would otherwise write to the default graph without a word.
    let (given, other): (&[(&str, bool)], &str) = match args.action {
        RdfAction::Import => (&[("sparql", args.sparql.is_some())], "update"),
        RdfAction::Update => (
            &[
                ("content", args.content.is_some()),
                ("format", args.format.is_some()),
                ("base_iri", args.base_iri.is_some()),
                ("into_graph", args.into_graph.is_some()),
            ],
            "import",
        ),
    };
    if let Some((name, _)) = given.iter().find(|(_, present)| *present) {
        let hint = if *name == "into_graph" {
            "; name the graph in the update itself (INSERT DATA { GRAPH <g> { … } })"
        } else {
            ""
        };
        return Err(ApiError::invalid_argument(
            name,
            format!("`{name}` belongs to action {other}, not to this one{hint}"),
        ));
    }
    match args.action {
        RdfAction::Import => import(ctx, request_ctx, args, admin)
            .await
            .map(|e| Step::Done(e, None)),
        RdfAction::Update => update(ctx, request_ctx, args, retry, admin).await,
    }
}

async fn import(
    ctx: &Context,
    request_ctx: &RequestContext<RoleServer>,
    mut args: RdfArgs,
    admin: bool,
) -> Result<Envelope, ApiError> {
    // Taken, not copied: the text is parsed from where the request put it.
    let content = args.content.take().ok_or_else(|| {
        ApiError::invalid_argument("content", "give the document text in `content`")
    })?;
    if content.len() > IMPORT_LIMIT_BYTES {
        return Err(ApiError {
            code: ErrorCode::PayloadTooLarge,
            message: format!(
                "the document has {} bytes; the limit is {IMPORT_LIMIT_BYTES} (use the CLI or the Graph Store endpoint for larger files)",
                content.len()
            ),
            param: Some("content".into()),
            validation: None,
        });
    }
    let format_name = args.format.clone().ok_or_else(|| {
        ApiError::invalid_argument(
            "format",
            "give the format: turtle, trig, ntriples, nquads, rdfxml or jsonld",
        )
    })?;
    let format = ImportFormat::from_name(&format_name).ok_or_else(|| {
        ApiError::invalid_argument("format", format!("unknown format {format_name:?}; use turtle, trig, ntriples, nquads, rdfxml or jsonld"))
    })?;
    let into_graph = args
        .into_graph
        .as_deref()
        .map(|iri| {
            NamedNode::new(iri)
                .map_err(|e| ApiError::invalid_argument("into_graph", format!("not an IRI: {e}")))
        })
        .transpose()?;
    let graph = graph_name(&args.graph);
    let options = ImportOptions {
        format,
        base_iri: args.base_iri.clone(),
        into_graph,
        one_graph: false,
        source_name: "content".into(),
    };
    let commit_request = request(&args, admin);
    commit_request.check_target(options.into_graph.as_ref())?;
    let engine = ctx.engine.clone();
    let name = graph.clone();
    // With a progress token, parsed-quad counts go to the client as progress notifications.
    let (progress_sender, mut progress_receiver) = tokio::sync::mpsc::unbounded_channel::<u64>();
    let forwarder = request_ctx.meta.get_progress_token().map(|token| {
        let peer = request_ctx.peer.clone();
        tokio::spawn(async move {
            while let Some(n_quads) = progress_receiver.recv().await {
                let param = ProgressNotificationParam::new(token.clone(), n_quads as f64)
                    .with_message(format!("{n_quads} quads parsed"));
                let _ = peer.notify_progress(param).await;
            }
        })
    });
    let outcome = blocking(move || {
        let graph = engine.graph_to_write(&name, admin)?;
        let document = graph.parse_document(content.as_bytes(), &options, |n| {
            let _ = progress_sender.send(n);
        })?;
        Ok(graph.commit_documents(vec![document], &commit_request)?)
    })
    .await;
    if let Some(forwarder) = forwarder {
        let _ = forwarder.await;
        // Every notification is written before the result, but a client that handles
        // notifications a turn later than responses (the TypeScript SDK) drops progress
        // that arrives in the same read as the result: a short pause keeps them apart.
        tokio::time::sleep(PROGRESS_SETTLE).await;
    }
    let outcome = outcome.map_err(|error| match error.param {
        None if error.code == ErrorCode::InvalidRdf => error.with_param("content"),
        _ => error,
    })?;
    Ok(outcome_envelope(&graph, &outcome, "import"))
}

async fn update(
    ctx: &Context,
    request_ctx: &RequestContext<RoleServer>,
    args: RdfArgs,
    retry: approval::Retry,
    admin: bool,
) -> Result<Step, ApiError> {
    let text = args
        .sparql
        .clone()
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| {
            ApiError::invalid_argument("sparql", "give the SPARQL Update text in `sparql`")
        })?;
    let graph = graph_name(&args.graph);
    let engine = ctx.engine.clone();
    let (name, preview_text) = (graph.clone(), text.clone());
    let (preview, removed) = blocking(move || {
        crate::sparql::parse_update(&preview_text, None)
            .map_err(crate::engine::EngineError::from)?;
        let existed = engine.graph_names().iter().any(|g| g.as_str() == name);
        let graph = engine.graph_to_write(&name, admin)?;
        let preview = graph.preview_update(&preview_text, None, &UpdateOptions::default())?;
        let removed = graph.quads_of(&preview.deletes[..preview.deletes.len().min(20)]);
        if !existed && preview.inserts.is_empty() && preview.deletes.is_empty() {
            // An update that changes nothing must not leave a new, empty graph behind.
            drop(graph);
            engine.delete_graph(&name)?;
        }
        Ok((preview, removed))
    })
    .await?;
    // Refused before the person is asked anything: the commit would be refused anyway.
    if !admin && let Some(graph) = preview.control_graphs.first() {
        return Err(crate::engine::EngineError::ControlGraphRefused {
            graph: (*graph).to_owned(),
        }
        .into());
    }
    if preview.inserts.is_empty() && preview.deletes.is_empty() && args.idempotency_key.is_none() {
        let outcome = CommitOutcome {
            commit_seq: None,
            head_seq: preview.base_seq,
            hash: None,
            inserted: 0,
            deleted: 0,
            idempotent_replay: false,
            validation: None,
        };
        return Ok(Step::Done(
            outcome_envelope(&graph, &outcome, "update"),
            None,
        ));
    }
    let commit_request = request(&args, admin);
    let engine = ctx.engine.clone();
    let name = graph.clone();
    if preview.deletes.is_empty() {
        // Nothing to ask about; but if the data moved and the update now removes
        // something, the person never saw it: that fails (`approval_declined`).
        let outcome = blocking(move || {
            let graph = engine.graph_to_write(&name, admin)?;
            Ok(graph.update_within(
                &text,
                None,
                &UpdateOptions::default(),
                &commit_request,
                &FxHashSet::default(),
            )?)
        })
        .await?;
        return Ok(Step::Done(
            outcome_envelope(&graph, &outcome, "update"),
            None,
        ));
    }
    let deleted_keys = format!("{:?}", preview.deletes);
    let question = approval::Question::new(
        &graph,
        "This update",
        &removed,
        preview.deletes.len(),
        &["rdf.update", &graph, &text, &deleted_keys],
    );
    let approved_by = match approval::ask(request_ctx, ctx, question, retry).await? {
        approval::Approval::Approved(by) => by,
        approval::Approval::InputRequired(result) => return Ok(Step::InputRequired(result)),
    };
    let allowed: FxHashSet<_> = preview.deletes.iter().copied().collect();
    let outcome = blocking(move || {
        let graph = engine.graph_to_write(&name, admin)?;
        Ok(graph.update_within(
            &text,
            None,
            &UpdateOptions::default(),
            &commit_request,
            &allowed,
        )?)
    })
    .await?;
    Ok(Step::Done(
        outcome_envelope(&graph, &outcome, "update"),
        Some(approved_by),
    ))
}

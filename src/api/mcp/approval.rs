//! Asking the person before a write removes data: MCP form elicitation naming what will
//! be removed, or `approval_required` when the client cannot ask. Only the operator's
//! `STRATA_DESTRUCTIVE=allow` skips the question; no tool argument can.
//!
//! Two ways to ask, by protocol version: up to 2025-11-25 the server sends
//! `elicitation/create` and waits; from 2026-07-28 servers may not send requests, so the
//! tool answers `input_required` with the question and a sealed `requestState`, and the
//! client retries with the person's answer (multi round-trip requests). The sealed state
//! binds the answer to this exact request: an approval cannot be replayed for other data.

use std::collections::BTreeMap;

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::ElicitationMode;
use rmcp::service::{ElicitationError, RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ErrorCode};
use crate::model::Quad;
use crate::query::envelope::{CursorCodec, CursorState};

/// The form shown to the person.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(description = "Approve the removal described above")]
pub struct Confirm {
    /// Check to let the removal happen.
    #[schemars(description = "Allow this removal")]
    pub approve: bool,
}

rmcp::elicit_safe!(Confirm);

/// How many removed quads the question lists before giving only a count.
const LISTED: usize = 20;

/// How a removal was approved (for the audit line).
pub type ApprovedBy = &'static str;

/// The name of the one input request an approval makes.
const INPUT_KEY: &str = "approval";

/// What the client sent back in a multi round-trip retry.
#[derive(Default)]
pub struct Retry {
    pub request_state: Option<String>,
    pub responses: Option<BTreeMap<String, serde_json::Value>>,
}

/// The outcome of asking.
pub enum Approval {
    Approved(ApprovedBy),
    /// Protocol 2026-07-28 and later: return this; the client retries with the answer.
    InputRequired(InputRequiredResult),
}

/// What is asked about, to bind an answer to its question.
pub struct Question<'a> {
    pub graph: &'a str,
    pub what: &'a str,
    pub quads: &'a [Quad],
    pub total: usize,
    /// A digest of the request (tool, arguments, what would be removed).
    pub fingerprint: String,
    /// The question's text when it is not about removed quads (e.g. publishing rules).
    pub text: Option<String>,
}

impl<'a> Question<'a> {
    /// A question about removing `total` quads (`quads` lists the first ones), bound to
    /// the request by a digest of `request` (what identifies it) and the listed quads.
    pub fn new(
        graph: &'a str,
        what: &'a str,
        quads: &'a [Quad],
        total: usize,
        request: &[&str],
    ) -> Self {
        let listed: Vec<String> = quads.iter().map(ToString::to_string).collect();
        let mut parts: Vec<&str> = request.to_vec();
        let listed = listed.join("\n");
        parts.push(&listed);
        Self {
            graph,
            what,
            quads,
            total,
            fingerprint: crate::query::envelope::args_digest(&parts),
            text: None,
        }
    }

    /// A question that removes nothing but changes what later writes may do: `text` is
    /// shown as is, `request` binds the answer.
    pub fn about(graph: &'a str, what: &'a str, text: String, request: &[&str]) -> Self {
        Self {
            graph,
            what,
            quads: &[],
            total: 0,
            fingerprint: crate::query::envelope::args_digest(request),
            text: Some(text),
        }
    }
}

impl<'a> Question<'a> {
    /// The question about a prepared write's removal.
    pub fn for_removal(removal: &'a crate::records::Removal) -> Self {
        let request: Vec<&str> = removal.fingerprint.iter().map(String::as_str).collect();
        match &removal.text {
            Some(text) => Question::about(&removal.graph, removal.what, text.clone(), &request),
            None => Question::new(
                &removal.graph,
                removal.what,
                &removal.quads,
                removal.quads.len(),
                &request,
            ),
        }
    }
}

/// Asks the person to approve a removal, the way the client's protocol version allows.
pub async fn ask(
    ctx: &RequestContext<RoleServer>,
    context: &super::Context,
    question: Question<'_>,
    retry: Retry,
) -> Result<Approval, ApiError> {
    let cursors: &CursorCodec = &context.cursors;
    if context.destructive_allowed {
        return Ok(Approval::Approved("operator"));
    }
    let uses_input_required = ctx
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
    let text = question.text.clone().unwrap_or_else(|| {
        message(
            question.graph,
            question.what,
            question.quads,
            question.total,
        )
    });
    if !uses_input_required {
        return ask_by_request(ctx, question.graph, question.what, question.total, text)
            .await
            .map(Approval::Approved);
    }
    let declined = |total: usize, graph: &str| ApiError {
        code: ErrorCode::ApprovalDeclined,
        message: declined_message(question.what, total, graph),
        param: None,
        validation: None,
    };
    if let (Some(state), Some(responses)) = (&retry.request_state, &retry.responses) {
        cursors
            .open(state, "approval", question.graph, &question.fingerprint)
            .map_err(|_| ApiError {
                code: ErrorCode::ApprovalRequired,
                message: "the answer belongs to another request (or the data changed since the question); nothing was written".into(),
                param: None,
                validation: None,
            })?;
        let answer = responses
            .get(INPUT_KEY)
            .and_then(|value| serde_json::from_value::<ElicitResult>(value.clone()).ok());
        let approved = answer.as_ref().is_some_and(|answer| {
            answer.action == ElicitationAction::Accept
                && answer
                    .content
                    .as_ref()
                    .and_then(|content| content.get("approve"))
                    .and_then(serde_json::Value::as_bool)
                    == Some(true)
        });
        return if approved {
            Ok(Approval::Approved("elicitation"))
        } else {
            Err(declined(question.total, question.graph))
        };
    }
    let supports_form = ctx
        .meta
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some();
    if !supports_form {
        return Err(approval_required(
            question.what,
            question.total,
            question.graph,
        ));
    }
    let schema = ElicitationSchema::from_type::<Confirm>().map_err(|e| ApiError {
        code: ErrorCode::Internal,
        message: format!("cannot build the approval form: {e}"),
        param: None,
        validation: None,
    })?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: text,
        requested_schema: schema,
    };
    let mut requests = BTreeMap::new();
    requests.insert(
        INPUT_KEY.to_owned(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    let state = cursors.seal(&CursorState {
        kind: "approval".into(),
        graph: question.graph.to_owned(),
        args: question.fingerprint,
        seq: 0,
        position: 0,
    });
    Ok(Approval::InputRequired(InputRequiredResult::new(
        Some(requests),
        Some(state),
    )))
}

fn declined_message(what: &str, total: usize, graph: &str) -> String {
    if total == 0 {
        format!("the person declined: {what} on graph {graph:?}; nothing was written")
    } else {
        format!(
            "the person declined removing {total} quads from graph {graph:?}; nothing was written"
        )
    }
}

fn approval_required(what: &str, total: usize, graph: &str) -> ApiError {
    let change = if total == 0 {
        format!("{what} on graph {graph:?} needs the person's approval")
    } else {
        format!("{what} removes {total} quads from graph {graph:?}")
    };
    ApiError {
        code: ErrorCode::ApprovalRequired,
        message: format!(
            "{change}; this client cannot ask the person to approve it (no form elicitation), so nothing was written"
        ),
        param: None,
        validation: None,
    }
}

fn message(graph: &str, what: &str, quads: &[Quad], total: usize) -> String {
    let mut message = format!("{what} will remove {total} quad(s) from graph \"{graph}\":\n");
    for quad in quads.iter().take(LISTED) {
        message.push_str("  ");
        message.push_str(&escape_controls(&format!("{quad} .")));
        message.push('\n');
    }
    if total > LISTED {
        message.push_str(&format!("  … and {} more\n", total - LISTED));
    }
    message.push_str("Approve this removal?");
    message
}

/// Protocol versions before 2026-07-28: ask with a server-to-client `elicitation/create`.
async fn ask_by_request(
    ctx: &RequestContext<RoleServer>,
    graph: &str,
    what: &str,
    total: usize,
    text: String,
) -> Result<ApprovedBy, ApiError> {
    let modes = ctx.peer.supported_elicitation_modes();
    if !modes.contains(&ElicitationMode::Form) {
        return Err(approval_required(what, total, graph));
    }
    match ctx.peer.elicit::<Confirm>(text).await {
        Ok(Some(Confirm { approve: true })) => Ok("elicitation"),
        Ok(_) | Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => {
            Err(ApiError {
                code: ErrorCode::ApprovalDeclined,
                message: declined_message(what, total, graph),
                param: None,
                validation: None,
            })
        }
        Err(error) => Err(ApiError {
            code: ErrorCode::ApprovalRequired,
            message: format!(
                "could not ask the person to approve the removal ({error}); nothing was written"
            ),
            param: None,
            validation: None,
        }),
    }
}

/// Escapes control characters so a crafted literal cannot rewrite the question.
fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(super::escape_controls("a\nb\u{1b}[2J"), "a\\nb\\u{1b}[2J");
    }
}

//! Asking the person before a write removes data: MCP form elicitation naming what will
//! be removed, or `approval_required` when the client cannot ask. Only the operator's
//! `STRATA_DESTRUCTIVE=allow` skips the question; no tool argument can.

use rmcp::service::ElicitationMode;
use rmcp::service::{ElicitationError, RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::error::{ApiError, ErrorCode};
use crate::model::Quad;

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

/// Asks the person to approve removing `quads` (of `total`) from `graph`.
pub async fn ask(
    ctx: &RequestContext<RoleServer>,
    destructive_allowed: bool,
    graph: &str,
    what: &str,
    quads: &[Quad],
    total: usize,
) -> Result<ApprovedBy, ApiError> {
    if destructive_allowed {
        return Ok("operator");
    }
    let modes = ctx.peer.supported_elicitation_modes();
    if !modes.contains(&ElicitationMode::Form) {
        return Err(ApiError {
            code: ErrorCode::ApprovalRequired,
            message: format!(
                "{what} removes {total} quads from graph {graph:?}; this client cannot ask the person to approve it (no form elicitation), so nothing was written"
            ),
            param: None,
        });
    }
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
    match ctx.peer.elicit::<Confirm>(message).await {
        Ok(Some(Confirm { approve: true })) => Ok("elicitation"),
        Ok(_) | Err(ElicitationError::UserDeclined) | Err(ElicitationError::UserCancelled) => {
            Err(ApiError {
                code: ErrorCode::ApprovalDeclined,
                message: format!(
                    "the person declined removing {total} quads from graph {graph:?}; nothing was written"
                ),
                param: None,
            })
        }
        Err(error) => Err(ApiError {
            code: ErrorCode::ApprovalRequired,
            message: format!(
                "could not ask the person to approve the removal ({error}); nothing was written"
            ),
            param: None,
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

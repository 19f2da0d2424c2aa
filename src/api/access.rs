//! What a caller may do: read, write and administer, each on all graphs or on some.
//!
//! One model for every way of signing in: an API key grants its scopes on its graphs; an
//! OAuth access token grants what its scopes say (`strata:read`, `strata:write:main`, …),
//! where each right can have graphs of its own. The HTTP routes and the MCP tools check
//! the same `Rights`, so a caller may do the same things whichever surface it uses.

/// Which graphs one right covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    Nothing,
    Every,
    /// These graphs only.
    Graphs(Vec<String>),
}

impl Grant {
    pub fn covers(&self, graph: &str) -> bool {
        match self {
            Grant::Nothing => false,
            Grant::Every => true,
            Grant::Graphs(graphs) => graphs.iter().any(|g| g == graph),
        }
    }

    /// Covers at least one graph.
    pub fn any(&self) -> bool {
        match self {
            Grant::Nothing => false,
            Grant::Every => true,
            Grant::Graphs(graphs) => !graphs.is_empty(),
        }
    }

    /// Both grants' graphs.
    fn union(self, other: Grant) -> Grant {
        match (self, other) {
            (Grant::Every, _) | (_, Grant::Every) => Grant::Every,
            (Grant::Nothing, g) | (g, Grant::Nothing) => g,
            (Grant::Graphs(mut a), Grant::Graphs(b)) => {
                for g in b {
                    if !a.contains(&g) {
                        a.push(g);
                    }
                }
                Grant::Graphs(a)
            }
        }
    }
}

/// The three rights a request can need, from least to most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Right {
    /// Queries, the log, exports.
    Read,
    /// Updates and Graph Store writes.
    Write,
    /// Creating and deleting graphs; changing the control graphs (SHACL shapes, search
    /// index declarations), which decide how later writes are judged.
    Admin,
}

impl Right {
    pub fn name(self) -> &'static str {
        match self {
            Right::Read => "read",
            Right::Write => "write",
            Right::Admin => "admin",
        }
    }
}

/// What a caller may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rights {
    pub read: Grant,
    pub write: Grant,
    pub admin: Grant,
}

impl Rights {
    /// Every right on every graph: stdio, or HTTP with no sign-in configured (loopback only).
    pub fn full() -> Self {
        Self {
            read: Grant::Every,
            write: Grant::Every,
            admin: Grant::Every,
        }
    }

    /// No right at all (a request without valid credentials, where they are required).
    pub fn none() -> Self {
        Self {
            read: Grant::Nothing,
            write: Grant::Nothing,
            admin: Grant::Nothing,
        }
    }

    /// An API key's: each of its scopes on its graphs (`None`: all).
    pub fn of_key(scopes: &[Right], graphs: Option<&[String]>) -> Self {
        let grant = |right| {
            if !scopes.contains(&right) {
                Grant::Nothing
            } else if let Some(graphs) = graphs {
                Grant::Graphs(graphs.to_vec())
            } else {
                Grant::Every
            }
        };
        Self {
            read: grant(Right::Read),
            write: grant(Right::Write),
            admin: grant(Right::Admin),
        }
    }

    /// An OAuth token's, from its scopes: `strata:read`, `strata:write`, `strata:admin` on
    /// every graph, `strata:read:<graph>` and `strata:write:<graph>` on one. A right
    /// implies the ones below it on the same graphs (a writer reads what it writes; an
    /// administrator does both). Scopes not of this form are ignored.
    pub fn of_scopes<'a>(scopes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut rights = Self::none();
        for scope in scopes {
            let Some(rest) = scope.strip_prefix("strata:") else {
                continue;
            };
            let (right, graph) = match rest.split_once(':') {
                Some((right, graph)) if !graph.is_empty() => (right, Some(graph)),
                Some(_) => continue,
                None => (rest, None),
            };
            let right = match right {
                "read" => Right::Read,
                "write" => Right::Write,
                "admin" if graph.is_none() => Right::Admin,
                _ => continue,
            };
            let grant = graph.map_or(Grant::Every, |g| Grant::Graphs(vec![g.to_owned()]));
            rights.read = rights.read.union(grant.clone());
            if right >= Right::Write {
                rights.write = rights.write.union(grant.clone());
            }
            if right == Right::Admin {
                rights.admin = rights.admin.union(grant);
            }
        }
        rights
    }

    pub fn grant(&self, right: Right) -> &Grant {
        match right {
            Right::Read => &self.read,
            Right::Write => &self.write,
            Right::Admin => &self.admin,
        }
    }

    /// May do `right` to `graph` (`None`: not about one graph, e.g. listing graphs or
    /// opening an MCP session: the right on some graph is enough).
    pub fn allows(&self, right: Right, graph: Option<&str>) -> bool {
        let grant = self.grant(right);
        graph.map_or_else(|| grant.any(), |g| grant.covers(g))
    }

    /// Whether `graph` is visible at all (listings leave the others out).
    pub fn sees(&self, graph: &str) -> bool {
        self.read.covers(graph)
    }

    /// Whether the caller sees every graph (so nothing needs narrowing).
    pub fn sees_all(&self) -> bool {
        self.read == Grant::Every
    }

    /// The engine's admin flag for a write to `graph` (control graphs, graph creation).
    pub fn admin_on(&self, graph: &str) -> bool {
        self.admin.covers(graph)
    }

    /// The scope an OAuth client should ask for to be allowed `right` on `graph`.
    pub fn scope_for(right: Right, graph: Option<&str>) -> String {
        match (right, graph) {
            (Right::Admin, _) | (_, None) => format!("strata:{}", right.name()),
            (_, Some(graph)) => format!("strata:{}:{graph}", right.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_scopes_map_to_rights_per_graph() {
        let rights = Rights::of_scopes(["openid", "strata:read", "strata:write:main"]);
        assert!(rights.allows(Right::Read, Some("other")));
        assert!(rights.allows(Right::Write, Some("main")));
        assert!(!rights.allows(Right::Write, Some("other")));
        assert!(!rights.allows(Right::Admin, Some("main")));
        assert!(rights.allows(Right::Write, None));
        assert!(!rights.allows(Right::Admin, None));

        let one = Rights::of_scopes(["strata:write:g1", "strata:read:g2"]);
        assert!(one.sees("g1") && one.sees("g2") && !one.sees("main"));
        assert!(!one.allows(Right::Write, Some("g2")));
        assert!(!one.sees_all());

        let admin = Rights::of_scopes(["strata:admin"]);
        assert_eq!(admin, Rights::full());

        // Malformed or foreign scopes grant nothing.
        let junk = Rights::of_scopes(["strata:", "strata:write:", "strata:admin:main", "read"]);
        assert_eq!(junk, Rights::none());
        assert!(!junk.allows(Right::Read, None));
    }

    #[test]
    fn key_scopes_keep_their_graph_limit_for_every_right() {
        let graphs = vec!["main".to_owned()];
        let key = Rights::of_key(&[Right::Read, Right::Admin], Some(&graphs));
        assert!(key.allows(Right::Admin, Some("main")));
        assert!(!key.allows(Right::Admin, Some("other")));
        assert!(!key.allows(Right::Write, Some("main")));
        assert!(key.admin_on("main") && !key.admin_on("other"));
        assert_eq!(
            Rights::scope_for(Right::Write, Some("main")),
            "strata:write:main"
        );
        assert_eq!(
            Rights::scope_for(Right::Admin, Some("main")),
            "strata:admin"
        );
    }
}

//! How a search meets the other conditions of a request: one `SearchPlan` enum and the
//! one function that picks it (JSON searches and SPARQL `search:` patterns alike).

/// At most this many candidate records are scored exactly (`FilterFirst`); more make the
/// index search with the filter applied (`FilteredNearest`) or search first and check
/// the hits (`SearchFirst`).
pub const EXACT_MAX_CANDIDATES: usize = 2_000;

/// A search plan; its name is what answers report (`plan`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchPlan {
    /// Nothing narrows the search: the index alone.
    Nearest,
    /// Few candidates: each is scored exactly, so the k best of them are found.
    FilterFirst,
    /// Many known candidates: the filter is applied inside the HNSW walk.
    FilteredNearest,
    /// Candidates too many to list (SPARQL patterns): search, keep the hits that pass,
    /// widen k until enough do (capped).
    SearchFirst,
}

/// What is known of the records a search may return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidates {
    /// Any record of the index.
    All,
    /// Exactly this many, listed.
    Listed(usize),
    /// More than this many; the list was not finished.
    MoreThan(usize),
}

impl SearchPlan {
    /// The plan for a search over `candidates`.
    pub fn choose(candidates: Candidates) -> SearchPlan {
        match candidates {
            Candidates::All => SearchPlan::Nearest,
            Candidates::Listed(n) if n <= EXACT_MAX_CANDIDATES => SearchPlan::FilterFirst,
            Candidates::Listed(_) => SearchPlan::FilteredNearest,
            Candidates::MoreThan(_) => SearchPlan::SearchFirst,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SearchPlan::Nearest => "nearest",
            SearchPlan::FilterFirst => "filter_first",
            SearchPlan::FilteredNearest => "filtered_nearest",
            SearchPlan::SearchFirst => "search_first",
        }
    }
}

impl std::fmt::Display for SearchPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_what_is_known_of_the_candidates() {
        assert_eq!(SearchPlan::choose(Candidates::All), SearchPlan::Nearest);
        assert_eq!(
            SearchPlan::choose(Candidates::Listed(0)),
            SearchPlan::FilterFirst
        );
        let most = Candidates::Listed(EXACT_MAX_CANDIDATES);
        assert_eq!(SearchPlan::choose(most), SearchPlan::FilterFirst);
        let more = Candidates::Listed(EXACT_MAX_CANDIDATES + 1);
        assert_eq!(SearchPlan::choose(more), SearchPlan::FilteredNearest);
        let unlisted = Candidates::MoreThan(EXACT_MAX_CANDIDATES);
        assert_eq!(SearchPlan::choose(unlisted), SearchPlan::SearchFirst);
        assert_eq!(SearchPlan::FilteredNearest.to_string(), "filtered_nearest");
    }
}

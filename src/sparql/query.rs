//! Parsing and evaluating queries, with cancellation and time limits.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use spareval::{
    CancellationToken, QueryEvaluationError, QueryEvaluator, QueryResults, QuerySolutionIter,
    QueryTripleIter,
};
use spargebra::{Query, SparqlParser};

use super::QueryError;
use super::dataset::SnapshotDataset;
use crate::model::{NamedNode, RdfGraphName};
use crate::store::Snapshot;

/// How to evaluate a query beyond its text.
#[derive(Clone, Default)]
pub struct QueryOptions {
    /// Overrides the query's FROM (SPARQL Protocol `default-graph-uri`).
    pub default_graph_uris: Vec<NamedNode>,
    /// Overrides the query's FROM NAMED (SPARQL Protocol `named-graph-uri`).
    pub named_graph_uris: Vec<NamedNode>,
    /// Cancels evaluation when triggered (a timeout, or a client going away).
    pub cancellation: CancellationToken,
    /// Remote endpoints a `SERVICE` clause may call (exact IRIs); all others are refused.
    pub allowed_services: Vec<NamedNode>,
    /// Evaluate everything row at a time, never on the batched path (`batched`): for
    /// tests that compare the two.
    pub row_at_a_time: bool,
    /// Threads the batched path may use for one group (0 or 1: this thread only).
    pub threads: usize,
}

/// `strata:isoWeek(?dateTime)`: the ISO 8601 week of a moment (in UTC) or a date, as
/// `"2026-W05"`. A simple literal is read as a date or moment too.
pub const ISO_WEEK: &str = "https://strata.dev/ns#isoWeek";

/// `strata:dateBucket(?value, "month")`: the UTC year (`"2026"`), month (`"2026-01"`),
/// ISO week (`"2026-W05"`), day (`"2026-01-31"`) or hour (`"2026-01-31T13"`) of an
/// `xsd:dateTime` (one without a time zone is taken as UTC) or of an `xsd:date` (its own
/// day, whatever its zone). Anything else is unbound: text that merely looks like a date
/// is not bucketed. The group keys of structured queries.
pub const DATE_BUCKET: &str = "https://strata.dev/ns#dateBucket";

/// Year, month, day and (for a moment) hour of a date or moment literal, in UTC;
/// `simple_too` also reads a simple literal's text.
fn calendar_of(
    literal: &oxrdf::LiteralRef<'_>,
    simple_too: bool,
) -> Option<(i64, u8, u8, Option<u8>)> {
    use oxrdf::vocab::xsd;
    use std::str::FromStr;
    let datatype = literal.datatype();
    let text = literal.value().trim();
    let simple = simple_too && datatype == xsd::STRING;
    if (datatype == xsd::DATE_TIME || datatype == xsd::DATE_TIME_STAMP || simple)
        && let Ok(moment) = oxsdatatypes::DateTime::from_str(text)
    {
        let utc = moment.adjust(Some(oxsdatatypes::TimezoneOffset::UTC))?;
        return Some((utc.year(), utc.month(), utc.day(), Some(utc.hour())));
    }
    if datatype == xsd::DATE || simple {
        let date = oxsdatatypes::Date::from_str(text).ok()?;
        return Some((date.year(), date.month(), date.day(), None));
    }
    None
}

fn iso_week_of(year: i64, month: u8, day: u8) -> Option<String> {
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(i32::try_from(year).ok()?, month, day).ok()?;
    let (year, week, _) = date.to_iso_week_date();
    Some(format!("{year}-W{week:02}"))
}

fn iso_week(args: &[oxrdf::Term]) -> Option<oxrdf::Term> {
    let [oxrdf::Term::Literal(literal)] = args else {
        return None;
    };
    let (year, month, day, _) = calendar_of(&literal.as_ref(), true)?;
    Some(oxrdf::Literal::new_simple_literal(iso_week_of(year, month, day)?).into())
}

fn date_bucket(args: &[oxrdf::Term]) -> Option<oxrdf::Term> {
    let [oxrdf::Term::Literal(literal), oxrdf::Term::Literal(unit)] = args else {
        return None;
    };
    let (year, month, day, hour) = calendar_of(&literal.as_ref(), false)?;
    let bucket = match unit.value() {
        "year" => format!("{year:04}"),
        "month" => format!("{year:04}-{month:02}"),
        "week" => iso_week_of(year, month, day)?,
        "day" => format!("{year:04}-{month:02}-{day:02}"),
        // A date has no hour: it is not put in the day's first.
        "hour" => format!("{year:04}-{month:02}-{day:02}T{:02}", hour?),
        _ => return None,
    };
    Some(oxrdf::Literal::new_simple_literal(bucket).into())
}

/// Time limit of one remote `SERVICE` call.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(30);

/// Parses a query, resolving relative IRIs against `base_iri`. Text nested too deeply
/// or too long for the evaluator is refused before it reaches the parser
/// (`QueryError::TooComplex`, see `limits`).
/// What a request of the other kind gets instead of the parser's complaint about its
/// first word ("expected VERSION"…): what it is and where it goes.
pub(super) const SENT_AS_QUERY: &str = "this is an update, not a query: send it as an update (POST /graphs/{g}/update, `strata update`, the MCP rdf tool with action update)";
pub(super) const SENT_AS_UPDATE: &str = "this is a query, not an update: send it as a query (GET or POST /graphs/{g}/sparql, `strata query`, the MCP query tool with mode sparql)";

/// A SPARQL parser resolving against `base_iri`, if given.
pub(super) fn parser(base_iri: Option<&str>) -> Result<SparqlParser, QueryError> {
    let parser = SparqlParser::new();
    match base_iri {
        Some(base) => parser
            .with_base_iri(base)
            .map_err(|e| QueryError::Syntax(format!("invalid base IRI {base}: {e}"))),
        None => Ok(parser),
    }
}

/// The parser's error, or `misdirected` when the text parses as the other kind.
pub(super) fn syntax_error(
    text: &str,
    error: impl std::fmt::Display,
    misdirected: Option<&str>,
) -> QueryError {
    QueryError::Syntax(misdirected.map_or_else(
        || undeclared_prefix(text, &error.to_string()).unwrap_or_else(|| error.to_string()),
        str::to_owned,
    ))
}

/// The parser says "expected one of …, Prefix not found, …" (a list of character
/// ranges) where a prefixed name uses a prefix the text does not declare: name it.
fn undeclared_prefix(text: &str, message: &str) -> Option<String> {
    if !message.contains("Prefix not found") {
        return None;
    }
    let at = message
        .strip_prefix("error at ")?
        .split(':')
        .collect::<Vec<_>>();
    let (line, column): (usize, usize) = (at.first()?.parse().ok()?, at.get(1)?.parse().ok()?);
    let chars: Vec<char> = text.lines().nth(line.checked_sub(1)?)?.chars().collect();
    let end = column.checked_sub(1)?.min(chars.len());
    let start = chars[..end]
        .iter()
        .rposition(|c| c.is_whitespace() || "{}()[];,/^|!=<>".contains(*c))
        .map_or(0, |i| i + 1);
    let token: String = chars[start..end].iter().collect();
    let (prefix, _) = token.split_once(':')?;
    Some(format!(
        "error at {line}:{column}: the prefix \"{prefix}:\" of {token} is not declared; add PREFIX {prefix}: <namespace IRI> before the query"
    ))
}

/// A byte-order mark that an editor saved at the start of a query file is no part of it.
pub(super) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

pub fn parse_query(text: &str, base_iri: Option<&str>) -> Result<Query, QueryError> {
    let text = without_bom(text);
    super::limits::check_text(text)?;
    let parser = parser(base_iri)?;
    let mut query = parser.clone().parse_query(text).map_err(|e| {
        let update = parser.parse_update(text).is_ok();
        syntax_error(text, e, update.then_some(SENT_AS_QUERY))
    })?;
    super::limits::check_query(&query, true)?;
    // After the depth check: the walk recurses as deep as the algebra.
    super::select_star::order_by_appearance(text, &mut query);
    Ok(query)
}

/// Evaluates a query over a snapshot. The results are lazy: they are computed while the
/// caller iterates them, and stop with an error if the cancellation token fires.
pub fn evaluate_query(
    snapshot: &Snapshot,
    query: &Query,
    options: &QueryOptions,
) -> Result<QueryResults<'static>, QueryError> {
    // The query may have been rewritten (entailment, search) since it was parsed.
    super::limits::check_query(query, false)?;
    // Groups the batched path answers become their results (`VALUES`) before spareval
    // plans the rest; only over the default graph as stored.
    let batched_copy;
    let query = if !options.row_at_a_time
        && options.default_graph_uris.is_empty()
        && options.named_graph_uris.is_empty()
        && super::batched::may_apply(query)
    {
        let mut copy = query.clone();
        super::batched::rewrite(&mut copy, snapshot, &options.cancellation, options.threads)?;
        batched_copy = copy;
        &batched_copy
    } else {
        query
    };
    let mut evaluator = QueryEvaluator::new().with_cancellation_token(options.cancellation.clone());
    evaluator = evaluator
        .with_custom_function(NamedNode::new_unchecked(ISO_WEEK), iso_week)
        .with_custom_function(NamedNode::new_unchecked(DATE_BUCKET), date_bucket);
    for endpoint in &options.allowed_services {
        evaluator = evaluator.with_service_handler(
            endpoint.clone(),
            super::service::RemoteService::new(endpoint.as_str(), SERVICE_TIMEOUT),
        );
    }
    let mut prepared = evaluator.prepare(query);
    if !options.default_graph_uris.is_empty() || !options.named_graph_uris.is_empty() {
        let dataset = prepared.dataset_mut();
        dataset.set_default_graph(
            options
                .default_graph_uris
                .iter()
                .cloned()
                .map(RdfGraphName::from)
                .collect(),
        );
        dataset.set_available_named_graphs(
            options
                .named_graph_uris
                .iter()
                .cloned()
                .map(Into::into)
                .collect(),
        );
    }
    let results = prepared
        .execute(SnapshotDataset::new(snapshot.clone()))
        .map_err(evaluation_error)?;
    // An answer computed before any row (ASK, or the batched path's groups) may have
    // read a damaged file: it must not leave.
    if let Some(reason) = snapshot.damage() {
        return Err(QueryError::StoreDamaged(reason));
    }
    Ok(check_cancellation_per_row(
        results,
        options.cancellation.clone(),
        snapshot.clone(),
    ))
}

/// A store file failed its checksum while the query read (see `store::file`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreDamaged(pub String);

/// The evaluator checks the token as it reads the dataset and inside its in-memory
/// loops; checking again per result row also stops a stream that is only serialized
/// (and runs the governor's check while the caller writes rows out). Each row also
/// checks that no file it was computed from failed its checksum (one load while none
/// in the process has).
fn check_cancellation_per_row(
    results: QueryResults<'static>,
    token: CancellationToken,
    snapshot: Snapshot,
) -> QueryResults<'static> {
    let alive = move || {
        token.ensure_alive()?;
        match snapshot.damage() {
            None => Ok(()),
            Some(reason) => Err(QueryEvaluationError::Dataset(Box::new(StoreDamaged(
                reason,
            )))),
        }
    };
    match results {
        QueryResults::Solutions(solutions) => {
            let variables: Arc<[oxrdf::Variable]> = solutions.variables().into();
            QueryResults::Solutions(QuerySolutionIter::new(
                variables,
                Checked::new(solutions, alive),
            ))
        }
        QueryResults::Graph(triples) => {
            QueryResults::Graph(QueryTripleIter::new(Checked::new(triples, alive)))
        }
        boolean => boolean,
    }
}

/// Results checked before each row and once more at their end: a scan that read a
/// damaged section may have found fewer rows (or none), and that end must not read as a
/// complete answer either.
struct Checked<I, F> {
    inner: I,
    alive: F,
    ended: bool,
}

impl<I, F> Checked<I, F> {
    fn new(inner: I, alive: F) -> Self {
        Self {
            inner,
            alive,
            ended: false,
        }
    }
}

impl<T, I, F> Iterator for Checked<I, F>
where
    I: Iterator<Item = Result<T, QueryEvaluationError>>,
    F: FnMut() -> Result<(), QueryEvaluationError>,
{
    type Item = Result<T, QueryEvaluationError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        match self.inner.next() {
            Some(item) => Some((self.alive)().and(item)),
            None => {
                self.ended = true;
                (self.alive)().err().map(Err)
            }
        }
    }
}

pub fn evaluation_error(error: QueryEvaluationError) -> QueryError {
    match error {
        QueryEvaluationError::Cancelled => QueryError::Cancelled,
        QueryEvaluationError::Dataset(error) if error.is::<StoreDamaged>() => {
            QueryError::StoreDamaged(error.to_string())
        }
        QueryEvaluationError::Service(e) => QueryError::ServiceRefused(e.to_string()),
        QueryEvaluationError::UnsupportedService(service) => {
            QueryError::ServiceRefused(service.as_str().to_owned())
        }
        other => QueryError::Evaluation(other.to_string()),
    }
}

/// Cancels a token when a time limit passes, unless dropped first.
///
/// All deadlines share one timer thread: starting one costs a heap push, not a thread
/// (a thread per query cost ~50 µs, as much as a whole small query).
pub struct Deadline {
    state: Arc<DeadlineState>,
}

struct DeadlineState {
    token: CancellationToken,
    /// Set when the deadline is dropped: the timer then skips it.
    done: AtomicBool,
    /// Set when the timer cancelled the token.
    fired: AtomicBool,
}

impl Deadline {
    /// Starts a timer that cancels `token` after `limit`.
    pub fn start(token: CancellationToken, limit: Duration) -> Self {
        let state = Arc::new(DeadlineState {
            token,
            done: AtomicBool::new(false),
            fired: AtomicBool::new(false),
        });
        let at = Instant::now().checked_add(limit);
        if let Some(at) = at {
            timer().schedule(at, &state);
        }
        Self { state }
    }

    /// True when the limit passed and the token was cancelled by this deadline.
    pub fn fired(&self) -> bool {
        self.state.fired.load(Ordering::Acquire)
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        self.state.done.store(true, Ordering::Release);
    }
}

/// The process-wide timer: a heap of pending deadlines and one thread that sleeps until
/// the earliest one.
struct Timer {
    heap: Mutex<BinaryHeap<Pending>>,
    wakeup: Condvar,
}

struct Pending {
    at: Instant,
    state: Weak<DeadlineState>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    // Reversed: the heap's top is the earliest deadline.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.at.cmp(&self.at)
    }
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            heap: Mutex::new(BinaryHeap::new()),
            wakeup: Condvar::new(),
        }));
        let spawned = std::thread::Builder::new()
            .name("strata-deadlines".into())
            .spawn(move || timer.run());
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start the query deadline thread; time limits are off");
        }
        timer
    })
}

impl Timer {
    fn schedule(&self, at: Instant, state: &Arc<DeadlineState>) {
        let mut heap = self.heap.lock();
        let earliest = heap.peek().is_none_or(|p| at < p.at);
        heap.push(Pending {
            at,
            state: Arc::downgrade(state),
        });
        if earliest {
            self.wakeup.notify_one();
        }
    }

    fn run(&self) {
        let mut heap = self.heap.lock();
        loop {
            let now = Instant::now();
            while heap.peek().is_some_and(|p| p.at <= now) {
                if let Some(pending) = heap.pop()
                    && let Some(state) = pending.state.upgrade()
                    && !state.done.load(Ordering::Acquire)
                {
                    state.fired.store(true, Ordering::Release);
                    state.token.cancel();
                }
            }
            // Dropped deadlines are only weak references: clear them out in bulk when
            // they make up most of the heap, so a busy server does not hoard them.
            if heap.len() > 1024 {
                let live: Vec<Pending> = std::mem::take(&mut *heap)
                    .into_iter()
                    .filter(|p| {
                        p.state
                            .upgrade()
                            .is_some_and(|s| !s.done.load(Ordering::Acquire))
                    })
                    .collect();
                *heap = live.into();
            }
            match heap.peek().map(|p| p.at) {
                Some(at) => {
                    self.wakeup.wait_until(&mut heap, at);
                }
                None => self.wakeup.wait(&mut heap),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_fire_in_order_and_dropped_ones_never_fire() {
        let slow = CancellationToken::new();
        let fast = CancellationToken::new();
        let dropped = CancellationToken::new();
        let slow_deadline = Deadline::start(slow.clone(), Duration::from_millis(300));
        let fast_deadline = Deadline::start(fast.clone(), Duration::from_millis(50));
        drop(Deadline::start(dropped.clone(), Duration::from_millis(10)));
        std::thread::sleep(Duration::from_millis(150));
        assert!(fast.is_cancelled() && fast_deadline.fired());
        assert!(!slow.is_cancelled() && !slow_deadline.fired());
        assert!(!dropped.is_cancelled());
        std::thread::sleep(Duration::from_millis(300));
        assert!(slow.is_cancelled() && slow_deadline.fired());
    }

    #[test]
    fn an_undeclared_prefix_is_named_and_a_bom_is_no_part_of_the_query() {
        let error = parse_query("SELECT ?s WHERE {\n  ?s  foo:p ?o }", None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("the prefix \"foo:\" of foo:p is not declared"),
            "{error}"
        );
        assert!(parse_query("\u{feff}ASK {}", None).is_ok());
        let error = crate::sparql::parse_update("DELETE WHERE {\n ?s ex:p ?o }", None)
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("\"ex:\""), "{error}");
        assert!(crate::sparql::parse_update("\u{feff}CLEAR DEFAULT", None).is_ok());
    }

    #[test]
    fn date_buckets_are_utc_and_only_of_dates_and_moments() {
        use oxrdf::vocab::xsd;
        let bucket = |value: &str, datatype, unit: &str| {
            date_bucket(&[
                oxrdf::Literal::new_typed_literal(value, datatype).into(),
                oxrdf::Literal::new_simple_literal(unit).into(),
            ])
            .map(|t| match t {
                oxrdf::Term::Literal(l) => l.value().to_owned(),
                other => panic!("{other}"),
            })
        };
        // 23:30 at -05:00 is the next day (and year) in UTC.
        let late = "2020-12-31T23:30:00-05:00";
        assert_eq!(
            bucket(late, xsd::DATE_TIME, "year").as_deref(),
            Some("2021")
        );
        assert_eq!(
            bucket(late, xsd::DATE_TIME, "month").as_deref(),
            Some("2021-01")
        );
        assert_eq!(
            bucket(late, xsd::DATE_TIME, "day").as_deref(),
            Some("2021-01-01")
        );
        assert_eq!(
            bucket(late, xsd::DATE_TIME, "hour").as_deref(),
            Some("2021-01-01T04")
        );
        assert_eq!(
            bucket(late, xsd::DATE_TIME, "week").as_deref(),
            Some("2020-W53")
        );
        // No zone: taken as UTC.
        let floating = "2021-03-04T05:06:07";
        assert_eq!(
            bucket(floating, xsd::DATE_TIME, "hour").as_deref(),
            Some("2021-03-04T05")
        );
        // A date keeps its day whatever its zone, and has no hour.
        assert_eq!(
            bucket("2021-03-04+09:00", xsd::DATE, "day").as_deref(),
            Some("2021-03-04")
        );
        assert_eq!(bucket("2021-03-04", xsd::DATE, "hour"), None);
        // Text that looks like a date, an invalid date, a number, an unknown unit: none.
        assert_eq!(bucket("2021-03-04", xsd::STRING, "day"), None);
        assert_eq!(bucket("2021-02-30", xsd::DATE, "day"), None);
        assert_eq!(bucket("2021", xsd::INTEGER, "year"), None);
        assert_eq!(bucket(floating, xsd::DATE_TIME, "decade"), None);
        // isoWeek reads a simple literal too, in UTC.
        let week =
            iso_week(&[oxrdf::Literal::new_simple_literal("2021-01-03T23:30:00-05:00").into()]);
        assert_eq!(
            week,
            Some(oxrdf::Literal::new_simple_literal("2021-W01").into())
        );
    }
}

//! Shared vocabulary of every layer: graph names, commit sequence numbers and hashes.
//!
//! This module does no I/O and knows nothing about encodings; each type checks its
//! invariant in its constructor so the rest of the crate can rely on it.

use std::fmt;

pub use oxrdf::{
    BlankNode, GraphName as RdfGraphName, Literal, NamedNode, NamedOrBlankNode, Quad, QuadRef,
    Term, Triple, TripleRef,
};

/// `rdf:type`, the one spelling of it in the crate.
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// `text` with every byte but the unreserved characters (`A-Z a-z 0-9 - . _ ~`)
/// percent-encoded: safe in an IRI path segment and in a URL query value.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The position of a commit in its graph's log. The first commit is 1; 0 means "before any
/// commit" (the empty graph).
pub type CommitSeq = u64;

/// Replaces every blank node of a quad by a fresh one, the same fresh node for the same
/// original within one `fresh` map (one document, one INSERT DATA operation), those
/// inside triple terms (RDF 1.2) included.
pub fn with_fresh_blank_nodes(
    mut quad: Quad,
    fresh: &mut std::collections::HashMap<BlankNode, BlankNode>,
) -> Quad {
    if let NamedOrBlankNode::BlankNode(node) = &quad.subject {
        quad.subject = fresh.entry(node.clone()).or_default().clone().into();
    }
    quad.object = with_fresh_blank_nodes_in(quad.object, fresh);
    if let RdfGraphName::BlankNode(node) = &quad.graph_name {
        quad.graph_name = fresh.entry(node.clone()).or_default().clone().into();
    }
    quad
}

/// `with_fresh_blank_nodes` for one term: a blank node, or the blank nodes of a triple
/// term at any depth.
pub fn with_fresh_blank_nodes_in(
    term: Term,
    fresh: &mut std::collections::HashMap<BlankNode, BlankNode>,
) -> Term {
    match term {
        Term::BlankNode(node) => fresh.entry(node).or_default().clone().into(),
        Term::Triple(triple) => {
            let mut triple = *triple;
            if let NamedOrBlankNode::BlankNode(node) = &triple.subject {
                triple.subject = fresh.entry(node.clone()).or_default().clone().into();
            }
            triple.object = with_fresh_blank_nodes_in(triple.object, fresh);
            Term::Triple(Box::new(triple))
        }
        term => term,
    }
}

/// The name of a graph (a dataset with its own log): `[a-z0-9][a-z0-9_-]{0,62}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GraphName(String);

impl GraphName {
    /// The graph used when none is named.
    pub const DEFAULT: &'static str = "main";

    /// Checks the name against the product's pattern.
    pub fn new(name: &str) -> Result<Self, InvalidGraphName> {
        let bytes = name.as_bytes();
        let first_ok = bytes
            .first()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        let rest_ok = bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-');
        if first_ok && rest_ok && bytes.len() <= 63 {
            Ok(Self(name.to_owned()))
        } else {
            Err(InvalidGraphName(name.to_owned()))
        }
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for GraphName {
    fn default() -> Self {
        Self(Self::DEFAULT.to_owned())
    }
}

impl fmt::Display for GraphName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A graph name that does not match `[a-z0-9][a-z0-9_-]{0,62}`.
#[derive(Debug, thiserror::Error)]
#[error("invalid graph name {0:?}: expected [a-z0-9][a-z0-9_-]{{0,62}}")]
pub struct InvalidGraphName(pub String);

/// A SHA-256 digest that links a commit to its parent.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CommitHash(pub [u8; 32]);

impl CommitHash {
    /// The parent hash of commit 1.
    pub const ZERO: CommitHash = CommitHash([0; 32]);

    /// Lowercase hexadecimal, 64 characters.
    pub fn to_hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            out.push(DIGITS[usize::from(byte >> 4)] as char);
            out.push(DIGITS[usize::from(byte & 0xf)] as char);
        }
        out
    }

    /// Parses 64 hexadecimal characters.
    pub fn from_hex(hex: &str) -> Option<Self> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0; 32];
        for (idx, pair) in bytes.chunks(2).enumerate() {
            let high = (pair[0] as char).to_digit(16)?;
            let low = (pair[1] as char).to_digit(16)?;
            out[idx] = u8::try_from(high * 16 + low).ok()?;
        }
        Some(Self(out))
    }
}

impl fmt::Debug for CommitHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Display for CommitHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Which instant of a bare date (`2026-06-26`) is meant: as a value (a date field, a
/// week bucket) its start; as a point to read at ("the graph as of that day") its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DayEdge {
    Start,
    End,
}

/// An RFC 3339 moment (`2026-06-26T10:00:00Z`, any offset), surrounding spaces ignored:
/// the one way every surface reads a moment.
pub fn parse_moment(text: &str) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::parse(text.trim(), &time::format_description::well_known::Rfc3339).ok()
}

/// A bare date (`2026-06-26`, UTC; `edge` says which end of the day) or an RFC 3339 moment.
pub fn parse_date_or_moment(text: &str, edge: DayEdge) -> Option<time::OffsetDateTime> {
    let text = text.trim();
    match parse_date(text) {
        Some(date) => {
            let day = date.midnight().assume_utc();
            Some(match edge {
                DayEdge::Start => day,
                DayEdge::End => day + time::Duration::days(1) - time::Duration::nanoseconds(1),
            })
        }
        None => parse_moment(text),
    }
}

/// The unit a valid time is written in. A bound names a whole unit: a period holds from
/// the first instant of its start's unit up to, not including, the first instant after
/// its end's unit (`end: "2019-12-31"` at `day` holds all of that day and stops at
/// `2020-01-01T00:00:00Z`), so back-to-back periods never overlap and never leave a gap.
/// `Instant` is an exact moment: as an end, the first instant the period no longer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Granularity {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Instant,
}

impl Granularity {
    pub const NAMES: &'static str = "year, month, day, hour, minute, second or instant";

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.trim() {
            "year" => Self::Year,
            "month" => Self::Month,
            "day" => Self::Day,
            "hour" => Self::Hour,
            "minute" => Self::Minute,
            "second" => Self::Second,
            "instant" => Self::Instant,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Year => "year",
            Self::Month => "month",
            Self::Day => "day",
            Self::Hour => "hour",
            Self::Minute => "minute",
            Self::Second => "second",
            Self::Instant => "instant",
        }
    }

    /// The first instant (UTC) of the unit holding `moment`.
    pub fn start_of(self, moment: time::OffsetDateTime) -> Option<time::OffsetDateTime> {
        let m = moment.to_offset(time::UtcOffset::UTC);
        Some(match self {
            Self::Year => time::Date::from_calendar_date(m.year(), time::Month::January, 1)
                .ok()?
                .midnight()
                .assume_utc(),
            Self::Month => time::Date::from_calendar_date(m.year(), m.month(), 1)
                .ok()?
                .midnight()
                .assume_utc(),
            Self::Day => m.date().midnight().assume_utc(),
            Self::Hour => m.replace_time(time::Time::from_hms(m.hour(), 0, 0).ok()?),
            Self::Minute => m.replace_time(time::Time::from_hms(m.hour(), m.minute(), 0).ok()?),
            Self::Second => m.replace_nanosecond(0).ok()?,
            Self::Instant => m,
        })
    }

    /// The first instant (UTC) after the unit holding `moment`: where a period ending in
    /// that unit stops holding. `None` past the calendar's end.
    pub fn end_of(self, moment: time::OffsetDateTime) -> Option<time::OffsetDateTime> {
        let start = self.start_of(moment)?;
        match self {
            Self::Year => time::Date::from_calendar_date(start.year() + 1, time::Month::January, 1)
                .ok()
                .map(|d| d.midnight().assume_utc()),
            Self::Month => {
                let (year, month) = match start.month() {
                    time::Month::December => (start.year() + 1, time::Month::January),
                    month => (start.year(), month.next()),
                };
                time::Date::from_calendar_date(year, month, 1)
                    .ok()
                    .map(|d| d.midnight().assume_utc())
            }
            Self::Day => start.checked_add(time::Duration::days(1)),
            Self::Hour => start.checked_add(time::Duration::hours(1)),
            Self::Minute => start.checked_add(time::Duration::minutes(1)),
            Self::Second => start.checked_add(time::Duration::seconds(1)),
            Self::Instant => Some(start),
        }
    }
}

/// A bound of a valid time as written: `2019` (a year), `2019-12` (a month), `2019-12-31`
/// (a day, UTC) or an RFC 3339 moment (an instant), with the unit its form names.
pub fn parse_period_bound(text: &str) -> Option<(time::OffsetDateTime, Granularity)> {
    let text = text.trim();
    let bytes = text.as_bytes();
    let number = |range: std::ops::Range<usize>| -> Option<i32> {
        let part = bytes.get(range)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())?
    };
    let first_of = |year: i32, month: i32| -> Option<time::OffsetDateTime> {
        let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
        let date = time::Date::from_calendar_date(year, month, 1).ok()?;
        Some(date.midnight().assume_utc())
    };
    match bytes.len() {
        4 => Some((first_of(number(0..4)?, 1)?, Granularity::Year)),
        7 if bytes[4] == b'-' => {
            Some((first_of(number(0..4)?, number(5..7)?)?, Granularity::Month))
        }
        _ => match parse_date(text) {
            Some(date) => Some((date.midnight().assume_utc(), Granularity::Day)),
            None => parse_moment(text).map(|m| (m, Granularity::Instant)),
        },
    }
}

/// `YYYY-MM-DD`, a real calendar day.
fn parse_date(text: &str) -> Option<time::Date> {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let month = time::Month::try_from(u8::try_from(digits(5..7)?).ok()?).ok()?;
    let day = u8::try_from(digits(8..10)?).ok()?;
    time::Date::from_calendar_date(i32::try_from(digits(0..4)?).ok()?, month, day).ok()
}

/// A commit number as text (`12`; surrounding spaces ignored): the one way every surface
/// reads one. 0 is the empty graph before commit 1.
pub fn parse_commit_seq(text: &str) -> Option<CommitSeq> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_names_follow_the_pattern() {
        for ok in ["main", "a", "0", "my-graph_2", &"a".repeat(63)] {
            assert!(GraphName::new(ok).is_ok(), "{ok}");
        }
        for bad in ["", "Main", "-a", "_a", "a b", "a.b", &"a".repeat(64), "é"] {
            assert!(GraphName::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hash_hex_round_trips() {
        let hash = CommitHash([0xab; 32]);
        assert_eq!(CommitHash::from_hex(&hash.to_hex()), Some(hash));
        assert_eq!(CommitHash::from_hex("zz"), None);
    }

    #[test]
    fn valid_time_units_meet_without_gap_or_overlap() {
        let at = |t: &str| parse_moment(t).unwrap();
        let (day, unit) = parse_period_bound("2019-12-31").unwrap();
        assert_eq!(unit, Granularity::Day);
        assert_eq!(unit.end_of(day), Some(at("2020-01-01T00:00:00Z")));
        let (month, unit) = parse_period_bound("2019-12").unwrap();
        assert_eq!(
            (unit, unit.end_of(month)),
            (Granularity::Month, Some(at("2020-01-01T00:00:00Z")))
        );
        let (year, unit) = parse_period_bound("2019").unwrap();
        assert_eq!(
            (unit, unit.start_of(year)),
            (Granularity::Year, Some(at("2019-01-01T00:00:00Z")))
        );
        assert_eq!(unit.end_of(year), Some(at("2020-01-01T00:00:00Z")));
        let moment = at("2019-02-28T13:45:30.5+01:00");
        assert_eq!(
            Granularity::Month.end_of(moment),
            Some(at("2019-03-01T00:00:00Z"))
        );
        assert_eq!(
            Granularity::Hour.start_of(moment),
            Some(at("2019-02-28T12:00:00Z"))
        );
        assert_eq!(
            Granularity::Hour.end_of(moment),
            Some(at("2019-02-28T13:00:00Z"))
        );
        assert_eq!(
            Granularity::Minute.end_of(moment),
            Some(at("2019-02-28T12:46:00Z"))
        );
        assert_eq!(
            Granularity::Second.end_of(moment),
            Some(at("2019-02-28T12:45:31Z"))
        );
        assert_eq!(Granularity::Instant.end_of(moment), Some(moment));
        assert_eq!(Granularity::Year.end_of(at("9999-06-01T00:00:00Z")), None);
        for bad in ["2019-13", "2019-1", "19", "2019-02-30", "x"] {
            assert_eq!(parse_period_bound(bad), None, "{bad}");
        }
    }

    #[test]
    fn times_and_commit_numbers_parse_one_way() {
        let start = parse_date_or_moment("2026-06-26", DayEdge::Start).unwrap();
        let end = parse_date_or_moment(" 2026-06-26 ", DayEdge::End).unwrap();
        assert_eq!(start.to_string(), "2026-06-26 0:00:00.0 +00:00:00");
        assert_eq!(
            end - start,
            time::Duration::days(1) - time::Duration::nanoseconds(1)
        );
        let moment = parse_date_or_moment("2026-06-26T10:00:00+02:00", DayEdge::End).unwrap();
        assert_eq!(moment, parse_moment("2026-06-26T08:00:00Z").unwrap());
        assert_eq!(parse_date_or_moment("2026-13-01", DayEdge::Start), None);
        assert_eq!(parse_moment("yesterday"), None);
        assert_eq!(parse_commit_seq(" 12 "), Some(12));
        for bad in ["", "-1", "+1", "1.0", "x", "99999999999999999999999"] {
            assert_eq!(parse_commit_seq(bad), None, "{bad:?}");
        }
    }
}

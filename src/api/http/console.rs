//! The browser console at `/`: a single page built from `console/` into `assets/console/`
//! (committed, so `cargo build` never needs Node) and compiled into the binary, so it works
//! on a machine with no internet. It uses only the public HTTP API.

use crate::error::ErrorCode;
use std::io::Write;
use std::sync::OnceLock;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::HttpError;

struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
    gzipped: OnceLock<Vec<u8>>,
}

macro_rules! asset {
    ($name:literal, $type:literal) => {
        Asset {
            name: $name,
            content_type: $type,
            body: include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/console/",
                $name
            )),
            gzipped: OnceLock::new(),
        }
    };
}

static ASSETS: [Asset; 4] = [
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("app.js", "text/javascript; charset=utf-8"),
    asset!("app.css", "text/css; charset=utf-8"),
    asset!("LICENSES.txt", "text/plain; charset=utf-8"),
];

/// Scripts and styles from this server only (CodeMirror adds `<style>` elements, hence
/// inline styles), no framing by other sites.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// `GET /`: the console page. With OAuth configured its scripts may also reach the
/// authorization server (metadata, client registration, token), nothing else.
pub async fn index(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let mut response = serve(&ASSETS[0], &headers);
    if let Some(validator) = &state.oauth {
        let origins = validator.browser_origins().await;
        let policy = format!(
            "{CONTENT_SECURITY_POLICY}; connect-src 'self' {}",
            origins.join(" ")
        );
        if let Ok(value) = HeaderValue::from_str(&policy) {
            response
                .headers_mut()
                .insert(header::CONTENT_SECURITY_POLICY, value);
        }
    }
    response
}

/// `GET /console/{file}`: the page's script, styles and licenses.
pub async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Result<Response, HttpError> {
    ASSETS
        .iter()
        .find(|a| a.name == file)
        .map(|a| serve(a, &headers))
        .ok_or_else(|| {
            HttpError::new(
                ErrorCode::NotFound,
                format!("the console has no file {file:?}"),
            )
        })
}

fn serve(asset: &Asset, headers: &HeaderMap) -> Response {
    let gzip = headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| coding.split(';').next().is_some_and(|c| c.trim() == "gzip"));
    let body: &[u8] = if gzip {
        asset.gzipped.get_or_init(|| gzip_bytes(asset.body))
    } else {
        asset.body
    };
    let mut response = (StatusCode::OK, body.to_vec()).into_response();
    let out = response.headers_mut();
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    // The assets change with the binary: revalidate rather than keep a stale console.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    out.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    out.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    if gzip {
        out.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    response
}

fn gzip_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .expect("gzip into memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_built_and_the_page_links_them() {
        let page = std::str::from_utf8(ASSETS[0].body).unwrap();
        for asset in &ASSETS[1..3] {
            assert!(asset.body.len() > 100, "{} is empty", asset.name);
            assert!(
                page.contains(&format!("/console/{}", asset.name)),
                "index.html does not load {}",
                asset.name
            );
        }
        let licenses = std::str::from_utf8(ASSETS[3].body).unwrap();
        assert!(licenses.contains("@codemirror/view"), "{licenses}");
    }

    #[test]
    fn gzip_round_trips() {
        use std::io::Read;
        let packed = gzip_bytes(ASSETS[1].body);
        assert!(packed.len() < ASSETS[1].body.len() / 2);
        let mut unpacked = Vec::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, ASSETS[1].body);
    }
}

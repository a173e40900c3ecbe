//! TLS to PostgreSQL, read from the URL as libpq reads it: `sslmode` (`disable`, `prefer`, the
//! default, `require`, `verify-ca`, `verify-full`) and `sslrootcert` (a PEM file of the
//! certificate authorities to trust, for a server whose certificate a private authority signed).
//!
//! rustls does the TLS (through tokio-postgres-rustls, with the ring provider and the Mozilla root
//! certificates built in): nothing to install, no system OpenSSL to find at build or run time, and
//! the same behaviour on every platform.
//!
//! As in libpq, `prefer` and `require` encrypt without checking who answers (they guard against
//! listening, not against a server in the middle), unless `sslrootcert` is given, which makes
//! `require` check the chain as `verify-ca` does; `verify-full` also checks that the certificate
//! names the host of the URL, and is the mode to use across a network one does not control.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

/// What `sslmode` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, unchecked; plain otherwise.
    Prefer,
    /// TLS or no connection; the certificate unchecked (checked as `VerifyCa` with `sslrootcert`).
    Require,
    /// TLS, the certificate signed by a trusted authority.
    VerifyCa,
    /// TLS, the certificate signed by a trusted authority and naming the URL's host.
    VerifyFull,
}

impl Mode {
    fn parse(text: &str) -> Result<Mode, String> {
        Ok(match text {
            "disable" => Mode::Disable,
            "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode={other} is not one omen knows; give disable, prefer, require, verify-ca or verify-full"
                ));
            }
        })
    }

    /// The mode the client itself understands (it knows nothing of checking certificates).
    fn client(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Prefer => "prefer",
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => "require",
        }
    }
}

/// The TLS a URL asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Settings {
    pub mode: Mode,
    /// `sslrootcert`: the authorities to trust instead of the built-in roots.
    pub root_certificates: Option<PathBuf>,
}

/// Takes the TLS parameters off a `postgres://` URL: the URL the client parses (its `sslmode` one
/// of the three the client knows) and the settings. Other parameters stay as they were.
///
/// # Errors
/// A message for an unknown `sslmode`, or a `sslrootcert` with a mode that checks nothing.
pub(crate) fn split(url: &str) -> Result<(String, Settings), String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut mode = None;
    let mut root_certificates = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded = percent_encoding::percent_decode_str(value)
            .decode_utf8()
            .map_err(|_| format!("the URL's {key} is not UTF-8 once decoded"))?;
        match key {
            "sslmode" => mode = Some(Mode::parse(&decoded)?),
            "sslrootcert" => root_certificates = Some(PathBuf::from(decoded.into_owned())),
            _ => kept.push(pair),
        }
    }
    let mut mode = mode.unwrap_or(Mode::Prefer);
    if root_certificates.is_some() {
        match mode {
            // libpq: a root certificate file makes `require` check the chain.
            Mode::Require => mode = Mode::VerifyCa,
            Mode::Disable | Mode::Prefer => {
                return Err(format!(
                    "sslrootcert is given but sslmode={} checks no certificate; use sslmode=verify-full (or verify-ca)",
                    mode.client()
                ));
            }
            Mode::VerifyCa | Mode::VerifyFull => {}
        }
    }
    let sslmode = format!("sslmode={}", mode.client());
    kept.push(&sslmode);
    Ok((
        format!("{base}?{}", kept.join("&")),
        Settings {
            mode,
            root_certificates,
        },
    ))
}

/// The rustls configuration for `settings`, or none when the connection is never encrypted.
///
/// # Errors
/// A message when the `sslrootcert` file cannot be read or holds no certificate.
pub(crate) fn connector(
    settings: &Settings,
) -> Result<Option<tokio_postgres_rustls::MakeRustlsConnect>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match settings.mode {
        Mode::Disable => return Ok(None),
        Mode::Prefer | Mode::Require => Arc::new(Unchecked {
            algorithms: provider.signature_verification_algorithms,
        }),
        Mode::VerifyCa => Arc::new(AnyName(webpki(settings, &provider)?)),
        Mode::VerifyFull => webpki(settings, &provider)?,
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS cannot be set up: {error}"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(tokio_postgres_rustls::MakeRustlsConnect::new(config)))
}

/// The standard check of a certificate chain (and of the host name), against the `sslrootcert`
/// file's authorities or the built-in roots.
fn webpki(
    settings: &Settings,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    let mut roots = rustls::RootCertStore::empty();
    match &settings.root_certificates {
        Some(path) => {
            let cannot = |error: &dyn std::fmt::Display| {
                format!(
                    "the certificate authorities of sslrootcert={} cannot be read: {error}",
                    path.display()
                )
            };
            let certificates = CertificateDer::pem_file_iter(path)
                .map_err(|error| cannot(&error))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| cannot(&error))?;
            if certificates.is_empty() {
                return Err(cannot(&"the file holds no PEM certificate"));
            }
            for certificate in certificates {
                roots.add(certificate).map_err(|error| cannot(&error))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|error| format!("TLS cannot be set up: {error}"))
}

/// `verify-ca`: the chain checked, whatever name the certificate gives.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForName
                | rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require`: any certificate, as libpq takes it in these modes; the handshake's
/// signatures are still checked, so the session is with whoever holds that certificate's key.
#[derive(Debug)]
struct Unchecked {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> (String, Mode, Option<PathBuf>) {
        let (url, settings) = split(url).unwrap();
        (url, settings.mode, settings.root_certificates)
    }

    #[test]
    fn the_url_picks_the_mode_libpq_would() {
        assert_eq!(
            settings("postgres://omen@db/omen"),
            (
                "postgres://omen@db/omen?sslmode=prefer".to_string(),
                Mode::Prefer,
                None
            )
        );
        assert_eq!(
            settings("postgres://omen@db/omen?sslmode=disable").1,
            Mode::Disable
        );
        assert_eq!(
            settings("postgres://omen@db/omen?connect_timeout=5&sslmode=require"),
            (
                "postgres://omen@db/omen?connect_timeout=5&sslmode=require".to_string(),
                Mode::Require,
                None
            )
        );
        // The client knows only disable/prefer/require: the checking modes reach it as require.
        assert_eq!(
            settings("postgres://omen@db/omen?sslmode=verify-full"),
            (
                "postgres://omen@db/omen?sslmode=require".to_string(),
                Mode::VerifyFull,
                None
            )
        );
        assert_eq!(
            settings("postgres://omen@db/omen?sslmode=verify-ca&application_name=omen"),
            (
                "postgres://omen@db/omen?application_name=omen&sslmode=require".to_string(),
                Mode::VerifyCa,
                None
            )
        );
    }

    #[test]
    fn a_root_certificate_file_is_decoded_and_makes_require_check_the_chain() {
        assert_eq!(
            settings("postgres://omen@db/omen?sslmode=require&sslrootcert=%2Fetc%2Fomen%20ca.pem"),
            (
                "postgres://omen@db/omen?sslmode=require".to_string(),
                Mode::VerifyCa,
                Some(PathBuf::from("/etc/omen ca.pem"))
            )
        );
        assert_eq!(
            settings("postgres://omen@db/omen?sslrootcert=ca.pem&sslmode=verify-full").1,
            Mode::VerifyFull
        );
    }

    #[test]
    fn an_unknown_mode_or_a_root_certificate_that_would_be_ignored_is_refused() {
        let error = split("postgres://omen@db/omen?sslmode=verify_full").unwrap_err();
        assert!(error.contains("verify-full"), "{error}");
        let error = split("postgres://omen@db/omen?sslrootcert=ca.pem").unwrap_err();
        assert!(error.contains("sslmode=verify-full"), "{error}");
        let error =
            split("postgres://omen@db/omen?sslmode=disable&sslrootcert=ca.pem").unwrap_err();
        assert!(error.contains("checks no certificate"), "{error}");
    }

    #[test]
    fn an_unreadable_or_empty_root_certificate_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Settings {
            mode: Mode::VerifyFull,
            root_certificates: Some(dir.path().join("absent.pem")),
        };
        let error = connector(&missing).err().unwrap();
        assert!(
            error.contains("absent.pem") && error.contains("cannot be read"),
            "{error}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let error = connector(&Settings {
            mode: Mode::VerifyCa,
            root_certificates: Some(empty),
        })
        .err()
        .unwrap();
        assert!(error.contains("no PEM certificate"), "{error}");
        assert!(
            connector(&Settings {
                mode: Mode::Disable,
                root_certificates: None
            })
            .unwrap()
            .is_none()
        );
    }

    /// A server without TLS answers a request for it with `N`, as this one does.
    #[test]
    fn sslmode_require_against_a_server_without_tls_fails_at_once_with_a_clear_error() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 8];
            stream.read_exact(&mut request).unwrap();
            // Length 8, then the SSLRequest code 80877103.
            assert_eq!(request, [0, 0, 0, 8, 4, 210, 22, 47]);
            stream.write_all(b"N").unwrap();
        });
        let url = format!("postgres://omen@127.0.0.1:{port}/omen?sslmode=require");
        let started = std::time::Instant::now();
        let error = crate::pg::open(&url).err().unwrap().to_string();
        server.join().unwrap();
        assert!(error.contains("TLS"), "{error}");
        assert!(error.contains("turn on ssl"), "{error}");
        // Not the pool's ten-second wait for a connection that will never come.
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// The throwaway cluster of `.ci/postgres.sh` with TLS on: its URL and the file of the
    /// authority that signed its certificate, or a loud note that these tests did not run.
    fn cluster() -> Option<(String, String)> {
        let url = std::env::var("OMEN_TEST_POSTGRES_URL").ok();
        let authority = std::env::var("OMEN_TEST_POSTGRES_CA").ok();
        match (url, authority) {
            (Some(url), Some(authority)) => Some((url, authority)),
            _ => {
                let message = "\nSKIPPED: TLS to PostgreSQL not tested against a server; set OMEN_TEST_POSTGRES_URL and OMEN_TEST_POSTGRES_CA or run .ci/run\n";
                let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
                None
            }
        }
    }

    /// Whether a connection from a pool opened on `url` is encrypted; the tables go into a schema
    /// of their own.
    fn encrypted(url: &str, schema: &str) -> Result<bool, crate::StoreError> {
        let options = format!("options=-csearch_path%3D{schema}");
        {
            let (client_url, _) = split(url).unwrap();
            let plain = client_url
                .replace("sslmode=require", "sslmode=disable")
                .replace("sslmode=prefer", "sslmode=disable");
            let mut admin = postgres::Client::connect(&plain, postgres::NoTls).unwrap();
            admin
                .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
                .unwrap();
        }
        let (pool, _) = crate::pg::open(&format!("{url}&{options}"))?;
        let mut client = crate::pg::connection(&pool)?;
        let conn = crate::db::Conn::Postgres(std::cell::RefCell::new(
            crate::pg_client::Transaction::begin(&mut client, true)?,
        ));
        let ssl = conn.query_opt(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            crate::db::params![],
            |row| row.get::<bool>(0),
        )?;
        Ok(ssl == Some(true))
    }

    #[test]
    fn verify_full_with_the_clusters_authority_connects_encrypted() {
        let Some((url, authority)) = cluster() else {
            return;
        };
        let root =
            percent_encoding::utf8_percent_encode(&authority, percent_encoding::NON_ALPHANUMERIC);
        let schema = "omen_tls_connects";
        assert!(
            encrypted(
                &format!("{url}?sslmode=verify-full&sslrootcert={root}"),
                schema
            )
            .unwrap()
        );
        assert!(encrypted(&format!("{url}?sslmode=require"), schema).unwrap());
        assert!(!encrypted(&format!("{url}?sslmode=disable"), schema).unwrap());
    }

    #[test]
    fn verify_full_refuses_an_unknown_authority_and_a_name_the_certificate_does_not_give() {
        let Some((url, authority)) = cluster() else {
            return;
        };
        // The built-in roots do not know the test's authority.
        let schema = "omen_tls_refuses";
        let error = encrypted(&format!("{url}?sslmode=verify-full"), schema)
            .unwrap_err()
            .to_string();
        assert!(error.contains("certificate"), "{error}");
        assert!(error.contains("sslrootcert"), "{error}");
        // The certificate names localhost and 127.0.0.1; asked for another name at the same
        // address, verify-full refuses and verify-ca, which checks the chain alone, accepts.
        let elsewhere = format!(
            "{}?hostaddr=127.0.0.1",
            url.replacen("127.0.0.1", "omen.invalid", 1)
        );
        let root =
            percent_encoding::utf8_percent_encode(&authority, percent_encoding::NON_ALPHANUMERIC);
        let error = encrypted(
            &format!("{elsewhere}&sslmode=verify-full&sslrootcert={root}"),
            schema,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("certificate"), "{error}");
        assert!(
            encrypted(
                &format!("{elsewhere}&sslmode=verify-ca&sslrootcert={root}"),
                schema
            )
            .unwrap()
        );
    }
}

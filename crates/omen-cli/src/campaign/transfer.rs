//! `omen export` and `omen import`: a whole campaign as JSON, and back.

use std::io::Write;

use serde_json::Value;

use super::args::{ExportArgs, ImportArgs};
use super::shared::{attempt, campaign_name, print, viewer};
use crate::escape;
use crate::json_input::read_text_at_most;
use crate::store_access::{open_read, open_to_create};

pub fn export(args: &ExportArgs) -> anyhow::Result<bool> {
    let store = attempt!(open_read(&args.db.db, &args.db.key));
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    let exported = match viewer(&campaign, args.view, &args.as_characters) {
        Some(viewer) => attempt!(store.export_campaign_for(&campaign, &viewer)),
        None => attempt!(store.export_campaign(&campaign)),
    };
    let text = format!("{exported:#}\n");
    crate::output::result().write_all(text.as_bytes())?;
    if let Some(path) = crate::output::file() {
        eprintln!("exported `{campaign}` to {}", path.display());
    }
    Ok(true)
}

pub fn import(args: &ImportArgs) -> anyhow::Result<bool> {
    let text = attempt!(read_text_at_most(
        &args.file,
        args.max_input,
        "raise --max-input if it really is an export"
    ));
    let export: Value = attempt!(
        serde_json::from_str(&text)
            .map_err(|e| format!("{} is not an export: {e}", args.file.display()))
    );
    let mut store = attempt!(open_to_create(&args.db));
    let campaign = attempt!(store.import_campaign(&export, args.as_name.as_deref()));
    // The export's own key vouches for its log: whoever made the file could have signed it with any
    // key, so the fingerprint is what to compare with the one the table trusts.
    let signed_by = export["campaign"]["public_key"].as_str().map_or(
        "no key (an export from before logs were signed)".to_string(),
        |key| format!("key {}", omen_store::fingerprint(key)),
    );
    print(
        args.db.format,
        &format!(
            "imported campaign `{}`; its log verified, signed by {signed_by}: compare that fingerprint with the one you trust\n",
            escape::line(&campaign.name)
        ),
        &campaign,
    )
}

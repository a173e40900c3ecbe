//! `omen campaign`: new, list, show, rename, set, delete, and the invites of members.

use omen_store::{LogFilter, Store};
use serde_json::json;

use super::args::{CampaignArgs, CampaignCommand, RoleArg};
use super::shared::{attempt, campaign_name, confirmed, fail, print};
use crate::escape;
use crate::shared_args::RollFormat;
use crate::store_access::{open_read, open_to_create, open_write};

pub fn campaign(args: &CampaignArgs) -> anyhow::Result<bool> {
    let mut store = match &args.command {
        CampaignCommand::List | CampaignCommand::Show { .. } | CampaignCommand::Invites { .. } => {
            attempt!(open_read(&args.db.db, &args.db.key))
        }
        CampaignCommand::New { .. } => attempt!(open_to_create(&args.db)),
        _ => attempt!(open_write(&args.db)),
    };
    let format = args.db.format;
    match &args.command {
        CampaignCommand::New { name } => {
            let campaign = attempt!(store.create_campaign(name));
            print(
                format,
                &format!(
                    "campaign `{}` created in {}\n",
                    escape::line(&campaign.name),
                    escape::line(&store.path().display().to_string())
                ),
                &campaign,
            )
        }
        CampaignCommand::List => {
            let campaigns = attempt!(store.campaigns());
            let mut text = String::new();
            for c in &campaigns {
                text.push_str(&format!("{}\n", escape::line(&c.name)));
            }
            if campaigns.is_empty() {
                text.push_str("no campaigns; create one with `omen campaign new NAME`\n");
            }
            print(format, &text, &campaigns)
        }
        CampaignCommand::Show { name } => show(&store, format, name),
        CampaignCommand::Rename { name, new_name } => {
            attempt!(store.rename_campaign(name, new_name));
            print(
                format,
                &format!("campaign `{name}` is now `{new_name}`\n"),
                &json!({ "renamed": name, "to": new_name }),
            )
        }
        CampaignCommand::Set { name, dialect } => {
            attempt!(store.set_campaign_dialect(name, dialect));
            let campaign = attempt!(store.campaign(name));
            print(
                format,
                &format!(
                    "campaign `{}` reads its rolls in the {} dialect\n",
                    escape::line(name),
                    campaign.dialect
                ),
                &campaign,
            )
        }
        CampaignCommand::Delete { name, yes } => {
            attempt!(store.campaign(name));
            if !attempt!(confirmed("campaign", name, *yes)) {
                return fail("not confirmed; nothing was deleted");
            }
            attempt!(store.delete_campaign(name));
            print(
                format,
                &format!("campaign `{name}` deleted\n"),
                &json!({ "deleted": name }),
            )
        }
        CampaignCommand::Invite {
            campaign,
            role,
            characters,
        } => invite(&mut store, format, campaign, *role, characters),
        CampaignCommand::Invites { campaign } => invites(&store, format, campaign),
        CampaignCommand::Revoke { campaign, id } => {
            let invite = attempt!(store.revoke_invite(campaign, *id));
            print(
                format,
                &format!(
                    "invite {} of `{}` revoked: its token no longer works\n",
                    invite.id,
                    escape::line(campaign)
                ),
                &invite,
            )
        }
    }
}

/// `omen campaign show`: the campaign's characters, saved rolls, log length, head and key.
fn show(store: &Store, format: RollFormat, name: &Option<String>) -> anyhow::Result<bool> {
    let name = attempt!(campaign_name(store, name));
    let campaign = attempt!(store.campaign(&name));
    let characters = attempt!(store.characters(&name));
    let saved = attempt!(store.saved_rolls(&name));
    let entries = attempt!(store.log(&LogFilter {
        campaign: Some(name.clone()),
        ..LogFilter::default()
    }));
    let public_key = attempt!(store.public_key(&name));
    let fingerprint = public_key.as_deref().map(omen_store::fingerprint);
    let head = attempt!(store.head(&name));
    let mut text = format!("campaign `{}`\n", escape::line(&campaign.name));
    text.push_str(&format!("dialect: {}\n", escape::line(&campaign.dialect)));
    text.push_str(&format!("characters ({}):\n", characters.len()));
    for c in &characters {
        text.push_str(&format!(
            "  {} ({})\n",
            escape::line(&c.name),
            escape::line(&c.rule_set)
        ));
    }
    text.push_str(&format!("saved rolls ({}):\n", saved.len()));
    for s in &saved {
        text.push_str(&format!(
            "  @{} = {}\n",
            escape::line(&s.name),
            escape::line(&s.expression)
        ));
    }
    text.push_str(&format!("log entries: {}\n", entries.len()));
    if let Some(head) = &head {
        text.push_str(&format!("log head: {}\n", head.receipt()));
    }
    match (&public_key, &fingerprint) {
        (Some(key), Some(print)) => {
            text.push_str(&format!("public key: {key}\nfingerprint: {print}\n"))
        }
        _ => text.push_str("public key: none (the campaign is not signed)\n"),
    }
    print(
        format,
        &text,
        &json!({
            "campaign": campaign, "characters": characters, "saved_rolls": saved,
            "log_entries": entries.len(), "head": head,
            "public_key": public_key, "fingerprint": fingerprint,
        }),
    )
}

/// `omen campaign invite`: a new member's token, shown once.
fn invite(
    store: &mut Store,
    format: RollFormat,
    campaign: &str,
    role: RoleArg,
    characters: &[String],
) -> anyhow::Result<bool> {
    let names: Vec<&str> = characters.iter().map(String::as_str).collect();
    let (invite, token) = attempt!(store.create_invite_for(campaign, role.into(), &names));
    let owns = if invite.characters.is_empty() {
        String::new()
    } else {
        format!(" owning {}", escape::line(&invite.characters.join(", ")))
    };
    let text = format!(
        "invite {} to `{}`: a {}{owns}\ntoken: {token}\nthis token is shown only now; give it to the member (revoke it with `omen campaign revoke {} {}`)\n",
        invite.id,
        escape::line(campaign),
        invite.role,
        escape::line(campaign),
        invite.id
    );
    print(format, &text, &json!({ "invite": invite, "token": token }))
}

/// `omen campaign invites`: every invite of the campaign, never its token.
fn invites(store: &Store, format: RollFormat, campaign: &str) -> anyhow::Result<bool> {
    let invites = attempt!(store.invites(campaign));
    let mut text = String::new();
    for invite in &invites {
        let owns = if invite.characters.is_empty() {
            String::new()
        } else {
            format!(" ({})", escape::line(&invite.characters.join(", ")))
        };
        let state = match &invite.revoked {
            Some(when) => format!("revoked {}", escape::line(when)),
            None => "active".to_string(),
        };
        text.push_str(&format!(
            "{:>4}  {:<8}{owns}  created {}  {state}\n",
            invite.id,
            invite.role.as_str(),
            escape::line(&invite.created)
        ));
    }
    if invites.is_empty() {
        text.push_str(&format!(
            "no invites; make one with `omen campaign invite {} --role gm`\n",
            escape::line(campaign)
        ));
    }
    print(format, &text, &invites)
}

//! `omen discord register`: the slash commands of `omen serve`'s Discord face, as Discord's command
//! definitions (JSON, derived from the rule sets like every other face). Printed, or with a bot
//! token sent to Discord, replacing the application's global commands.

use clap::{Args, Subcommand};

/// `omen discord`.
#[derive(Debug, Subcommand)]
pub enum DiscordCommand {
    /// Print the slash commands as Discord's JSON, or send them with --bot-token.
    #[command(
        after_help = "Examples:\n  omen discord register > commands.json\n  omen discord register --application-id 123456789012345678 --bot-token TOKEN"
    )]
    Register(RegisterArgs),
}

#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The application's id (the developer portal's "Application ID"); needed to send.
    #[arg(long, value_name = "ID", env = "OMEN_DISCORD_APPLICATION_ID")]
    pub application_id: Option<String>,
    /// The bot's token: send the commands to Discord instead of printing them.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "OMEN_DISCORD_BOT_TOKEN",
        hide_env_values = true
    )]
    pub bot_token: Option<String>,
    /// Discord's API.
    #[arg(long, value_name = "URL", env = "OMEN_DISCORD_API_BASE", default_value = omen_server::discord::DEFAULT_API_BASE)]
    pub api_base: String,
}

/// Prints or sends the commands; `Ok(false)` when Discord refused them.
pub fn run(command: &DiscordCommand) -> anyhow::Result<bool> {
    let DiscordCommand::Register(args) = command;
    let commands = omen_server::discord::definitions::commands();
    let Some(token) = &args.bot_token else {
        println!("{}", serde_json::to_string_pretty(&commands)?);
        return Ok(true);
    };
    let Some(id) = &args.application_id else {
        anyhow::bail!("sending the commands needs the application's id: give --application-id");
    };
    let api = omen_server::discord::webhook::DiscordApi::new(&args.api_base, id);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let answer = runtime
        .block_on(api.put_commands(token, &commands))
        .map_err(anyhow::Error::msg)?;
    if (200..300).contains(&answer.status) {
        let count = commands.as_array().map_or(0, Vec::len);
        println!("registered {count} commands");
        return Ok(true);
    }
    eprintln!(
        "error: Discord answered {}: {}",
        answer.status,
        String::from_utf8_lossy(&answer.body)
    );
    Ok(false)
}

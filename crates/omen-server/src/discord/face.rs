//! What the Discord routes share: the server's state, the gate, Discord's API and the bound on
//! deferred answers. Below every Discord file that reads it.

use std::sync::Arc;

use tokio::sync::Semaphore;

use super::gate::Gate;
use super::webhook::DiscordApi;
use crate::AppState;

/// What the Discord routes share: the server's state, the gate, Discord's API and the bound on
/// deferred answers.
#[derive(Clone)]
pub(crate) struct Face {
    pub app: AppState,
    pub inner: Arc<FaceInner>,
}

pub(crate) struct FaceInner {
    pub gate: Gate,
    pub api: DiscordApi,
    pub deferred: Arc<Semaphore>,
}

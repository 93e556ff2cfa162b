//! Seed 002's recruitment protocol (Gage and Murphy, "Affective Recruitment of Distributed
//! Heterogeneous Agents"): six messages in a three-way handshake of two stages, and SHAME,
//! which decides when a robot lets itself be recruited.
//!
//! ```text
//! requester                                responders
//! HELP (location, percept)  ------------>  each decides whether to answer
//!                           <------------  ACCEPT (estimated arrival time)
//! RESPONDER (chosen id)     ------------>  "go" for the chosen one, "not needed" for the rest
//!                           <------------  ARRIVAL (lease)
//! AGREE                     ------------>
//!                           <------------  ACKACK; the responder takes over until the lease ends
//! ```
//!
//! The state machines here know nothing of worlds, buses or trees: they take messages and
//! the time, and return what to send and what to report. Messages get lost, so every state
//! that waits has a deadline; nothing waits forever.

mod messages;
mod requester;
mod responder;
mod shame;

pub use messages::{
    arrival_allowance, kind, Body, Msg, Outbox, Progress, Report, Send, ARRIVAL_SLACK_MS,
    HANDSHAKE_TRIES, MS_PER_UNIT,
};
pub use requester::Requester;
pub use responder::{HelpView, Responder};
pub use shame::{seed_ignore_cost, Shame};

#[cfg(test)]
mod tests;

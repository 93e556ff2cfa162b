//! The bytes of BehaviorTree.CPP's Groot 2 protocol (`groot2_protocol.h`, protocol 2, from
//! BehaviorTree.CPP 4.4 on): request and reply headers, node status codes, recorded
//! transitions. Integers are little-endian, as `memcpy` writes them on every target we run on.

/// `kProtocolID`.
pub const PROTOCOL: u8 = 2;
/// A request header: protocol, type, a random id the reply echoes.
pub const REQUEST_LEN: usize = 6;
/// A reply header: the request header, then the 16-byte id of the tree being served.
pub const REPLY_LEN: usize = REQUEST_LEN + 16;

/// The request types (`RequestType`, ASCII codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    FullTree,
    Status,
    Blackboard,
    HookInsert,
    HookRemove,
    BreakpointReached,
    BreakpointUnlock,
    HooksDump,
    RemoveAllHooks,
    DisableAllHooks,
    ToggleRecording,
    GetTransitions,
    Other(u8),
}

impl Request {
    pub fn from_code(c: u8) -> Request {
        match c {
            b'T' => Request::FullTree,
            b'S' => Request::Status,
            b'B' => Request::Blackboard,
            b'I' => Request::HookInsert,
            b'R' => Request::HookRemove,
            b'N' => Request::BreakpointReached,
            b'U' => Request::BreakpointUnlock,
            b'D' => Request::HooksDump,
            b'A' => Request::RemoveAllHooks,
            b'X' => Request::DisableAllHooks,
            b'r' => Request::ToggleRecording,
            b't' => Request::GetTransitions,
            other => Request::Other(other),
        }
    }

    pub fn code(self) -> u8 {
        match self {
            Request::FullTree => b'T',
            Request::Status => b'S',
            Request::Blackboard => b'B',
            Request::HookInsert => b'I',
            Request::HookRemove => b'R',
            Request::BreakpointReached => b'N',
            Request::BreakpointUnlock => b'U',
            Request::HooksDump => b'D',
            Request::RemoveAllHooks => b'A',
            Request::DisableAllHooks => b'X',
            Request::ToggleRecording => b'r',
            Request::GetTransitions => b't',
            Request::Other(c) => c,
        }
    }
}

/// A parsed request header. The protocol byte is not checked, as BehaviorTree.CPP does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: Request,
    pub id: u32,
}

/// Reads a request header; `None` unless it is exactly 6 bytes ("wrong request header").
pub fn parse_request(part: &[u8]) -> Option<Header> {
    let b: &[u8; REQUEST_LEN] = part.try_into().ok()?;
    Some(Header {
        kind: Request::from_code(b[1]),
        id: u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
    })
}

/// The 6 bytes of a request header (the publisher sends one for BREAKPOINT_REACHED).
pub fn request_header(kind: Request, id: u32) -> [u8; REQUEST_LEN] {
    let mut out = [0u8; REQUEST_LEN];
    out[0] = PROTOCOL;
    out[1] = kind.code();
    out[2..6].copy_from_slice(&id.to_le_bytes());
    out
}

/// The 22 bytes of a reply: the request echoed with our protocol, then the tree's id.
pub fn reply_header(request: Header, tree: &[u8; 16]) -> [u8; REPLY_LEN] {
    let mut out = [0u8; REPLY_LEN];
    out[..REQUEST_LEN].copy_from_slice(&request_header(request.kind, request.id));
    out[REQUEST_LEN..].copy_from_slice(tree);
    out
}

/// A random version-4 UUID from `seed` bits, as `CreateRandomUUID` makes the tree id.
pub fn tree_uuid(seed: [u8; 16]) -> [u8; 16] {
    let mut b = seed;
    b[6] = (b[6] & 0x4F) | 0x40;
    b[8] = (b[8] & 0xBF) | 0x80;
    b
}

/// The status byte of a node in a STATUS snapshot: the status (0 IDLE, 1 RUNNING, 2 SUCCESS,
/// 3 FAILURE, 4 SKIPPED), except that a change to IDLE is 10 + the status it left.
pub fn snapshot_code(from: u8, to: u8) -> u8 {
    if to == 0 {
        10 + from
    } else {
        to
    }
}

/// The status number of a status name as traces write it.
pub fn status_number(name: &str) -> u8 {
    match name {
        "RUNNING" => 1,
        "SUCCESS" => 2,
        "FAILURE" => 3,
        "SKIPPED" => 4,
        _ => 0,
    }
}

/// One recorded transition as GET_TRANSITIONS and `.btlog` files hold it: 6 bytes of
/// microseconds (since the recording or log started), the uid, the raw status (IDLE is 0).
pub fn transition(out: &mut Vec<u8>, micros: u64, uid: u16, status: u8) {
    out.extend_from_slice(&micros.to_le_bytes()[..6]);
    out.extend_from_slice(&uid.to_le_bytes());
    out.push(status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_and_wrong_sizes_are_refused() {
        let h = Header {
            kind: Request::Blackboard,
            id: 0xDEAD_BEEF,
        };
        let bytes = request_header(h.kind, h.id);
        assert_eq!(bytes, [2, b'B', 0xEF, 0xBE, 0xAD, 0xDE]);
        assert_eq!(parse_request(&bytes), Some(h));
        assert_eq!(parse_request(&bytes[..5]), None);
        assert_eq!(parse_request(&[2, b'T', 0, 0, 0, 0, 0]), None);
        let reply = reply_header(h, &[7; 16]);
        assert_eq!(&reply[..6], &bytes);
        assert_eq!(&reply[6..], &[7; 16]);
        assert_eq!(Request::from_code(b'?'), Request::Other(b'?'));
    }

    #[test]
    fn uuid_has_version_and_variant_bits() {
        let u = tree_uuid([0xFF; 16]);
        assert_eq!(u[6] >> 4, 4);
        assert_eq!(u[8] >> 6, 0b10);
        let z = tree_uuid([0; 16]);
        assert_eq!((z[6], z[8]), (0x40, 0x80));
    }

    #[test]
    fn idle_codes_say_what_was_left() {
        assert_eq!(snapshot_code(1, 0), 11);
        assert_eq!(snapshot_code(2, 0), 12);
        assert_eq!(snapshot_code(3, 0), 13);
        assert_eq!(snapshot_code(0, 2), 2);
        assert_eq!(status_number("SKIPPED"), 4);
        assert_eq!(status_number("IDLE"), 0);
    }

    #[test]
    fn transitions_are_nine_bytes() {
        let mut out = Vec::new();
        transition(&mut out, 0x0102_0304_0506, 0x0708, 3);
        assert_eq!(out, [6, 5, 4, 3, 2, 1, 8, 7, 3]);
    }
}

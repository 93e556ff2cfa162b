//! A team's keys: every member (robot, component host, launcher) signs what it sends with its
//! own Ed25519 key, and every member verifies what it receives against the team's public keys.
//!
//! On disk, in one directory (`affect keys` writes it):
//!
//! - `team.pub`: `{"team": "Minefield", "members": {"UAV": "<base64 public key>", ...}}`
//! - `<member>.key`: `{"name": "UAV", "secret": "<base64 32-byte Ed25519 seed>"}`, mode 0600
//!
//! A member's secret key stays on its machine; `team.pub` goes to every machine of the team.
//! Both are refused when others may change them, or read a secret key (`key_modes.rs`).

use crate::key_modes::{self, What};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file of a team's public keys in a key directory.
pub const TEAM_FILE: &str = "team.pub";

/// The member name the launcher signs with.
pub const LAUNCHER: &str = "launch";

#[derive(Serialize, Deserialize)]
struct TeamFile {
    team: String,
    members: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
struct SecretFile {
    name: String,
    secret: String,
}

/// One member's signing key.
pub struct Identity {
    pub name: String,
    key: SigningKey,
}

impl Identity {
    /// A fresh random key.
    pub fn generate(name: &str) -> Identity {
        Identity {
            name: name.to_string(),
            key: SigningKey::generate(&mut rand_core::OsRng),
        }
    }

    /// The member's key from `DIR/<name>.key`.
    pub fn load(dir: &Path, name: &str) -> Result<Identity, String> {
        let path = secret_path(dir, name);
        key_modes::check(dir, What::Dir)?;
        key_modes::check(&path, What::Secret)?;
        let text = read(&path)?;
        let file: SecretFile = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a secret key file: {e}", path.display()))?;
        let bytes: [u8; 32] = BASE64
            .decode(file.secret.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("`{}`: `secret` is not a base64 32-byte key", path.display()))?;
        Ok(Identity {
            name: name.to_string(),
            key: SigningKey::from_bytes(&bytes),
        })
    }

    pub fn public(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// The signature of `message`.
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }

    fn secret_text(&self) -> String {
        let file = SecretFile {
            name: self.name.clone(),
            secret: BASE64.encode(self.key.to_bytes()),
        };
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }
}

/// The public keys of a team's members.
#[derive(Clone, Debug)]
pub struct TeamKeys {
    pub team: String,
    members: BTreeMap<String, VerifyingKey>,
}

/// Why a signed message was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    UnknownSender,
    NoSignature,
    BadSignature,
}

impl Refusal {
    pub fn text(self) -> &'static str {
        match self {
            Refusal::UnknownSender => "unknown sender",
            Refusal::NoSignature => "no signature",
            Refusal::BadSignature => "bad signature",
        }
    }
}

impl TeamKeys {
    /// The team's public keys from `DIR/team.pub`.
    pub fn load(dir: &Path) -> Result<TeamKeys, String> {
        let path = dir.join(TEAM_FILE);
        key_modes::check(dir, What::Dir)?;
        key_modes::check(&path, What::Team)?;
        let text = read(&path)?;
        let file: TeamFile = serde_json::from_str(&text)
            .map_err(|e| format!("`{}` is not a team key file: {e}", path.display()))?;
        let mut members = BTreeMap::new();
        for (name, key) in file.members {
            let bytes: [u8; 32] = BASE64
                .decode(key.trim())
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| {
                    format!(
                        "`{}`: the key of `{name}` is not a base64 32-byte key",
                        path.display()
                    )
                })?;
            let key = VerifyingKey::from_bytes(&bytes).map_err(|e| {
                format!(
                    "`{}`: the key of `{name}` is not valid: {e}",
                    path.display()
                )
            })?;
            members.insert(name, key);
        }
        Ok(TeamKeys {
            team: file.team,
            members,
        })
    }

    pub fn members(&self) -> impl Iterator<Item = &str> {
        self.members.keys().map(String::as_str)
    }

    /// Checks that `signature` is `sender`'s over `message`.
    pub fn verify(
        &self,
        sender: &str,
        message: &[u8],
        signature: Option<&[u8]>,
    ) -> Result<(), Refusal> {
        let key = self.members.get(sender).ok_or(Refusal::UnknownSender)?;
        let sig = signature.ok_or(Refusal::NoSignature)?;
        let sig: [u8; 64] = sig.try_into().map_err(|_| Refusal::BadSignature)?;
        key.verify(message, &Signature::from_bytes(&sig))
            .map_err(|_| Refusal::BadSignature)
    }
}

fn secret_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.key"))
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))
}

/// Generates a key for every member and writes the team's key directory. Existing secret
/// keys of the same names are kept (so adding a member does not re-key the others); the
/// team file lists every member's public key.
pub fn generate(dir: &Path, team: &str, names: &[String]) -> Result<Vec<String>, String> {
    if !dir.exists() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        key_modes::set(dir, key_modes::DIR_MODE)?;
    }
    key_modes::check(dir, What::Dir)?;
    let mut members = BTreeMap::new();
    let mut created = Vec::new();
    for name in names {
        let path = secret_path(dir, name);
        let id = if path.exists() {
            Identity::load(dir, name)?
        } else {
            let id = Identity::generate(name);
            write_secret(&path, &id.secret_text())?;
            created.push(name.clone());
            id
        };
        members.insert(name.clone(), BASE64.encode(id.public().to_bytes()));
    }
    let file = TeamFile {
        team: team.to_string(),
        members,
    };
    let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())? + "\n";
    let path = dir.join(TEAM_FILE);
    std::fs::write(&path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    key_modes::set(&path, key_modes::TEAM_MODE)?;
    Ok(created)
}

fn write_secret(path: &Path, text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(key_modes::SECRET_MODE)
            .open(path)
            .map_err(fail)?;
        f.write_all(text.as_bytes()).map_err(fail)
    }
    #[cfg(not(unix))]
    {
        std::fs::write(path, text).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_verify_their_own_signatures_and_nobody_elses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("keys");
        let names = vec!["UAV".to_string(), "UGV#1".to_string()];
        let created = generate(&dir, "Minefield", &names).unwrap();
        assert_eq!(created, names);
        let team = TeamKeys::load(&dir).unwrap();
        assert_eq!(team.team, "Minefield");
        let uav = Identity::load(&dir, "UAV").unwrap();
        let sig = uav.sign(b"HELP");
        assert_eq!(team.verify("UAV", b"HELP", Some(&sig)), Ok(()));
        assert_eq!(
            team.verify("UAV", b"HELP!", Some(&sig)),
            Err(Refusal::BadSignature)
        );
        assert_eq!(
            team.verify("UGV#1", b"HELP", Some(&sig)),
            Err(Refusal::BadSignature),
            "signed by the UAV, claimed by a UGV"
        );
        assert_eq!(
            team.verify("Stranger", b"HELP", Some(&sig)),
            Err(Refusal::UnknownSender)
        );
        assert_eq!(team.verify("UAV", b"HELP", None), Err(Refusal::NoSignature));
        // A stranger's key with a member's name is refused.
        let stranger = Identity::generate("UAV");
        assert_eq!(
            team.verify("UAV", b"HELP", Some(&stranger.sign(b"HELP"))),
            Err(Refusal::BadSignature)
        );
        // Generating again keeps existing keys and adds new members.
        let more = vec!["UAV".to_string(), "laptop1".to_string()];
        assert_eq!(generate(&dir, "Minefield", &more).unwrap(), ["laptop1"]);
        let again = Identity::load(&dir, "UAV").unwrap();
        assert_eq!(again.public(), uav.public());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Whatever the umask, `affect keys` makes the folder 0700, `team.pub` 0644 and every
    /// secret key 0600; a key folder, `team.pub` or secret key others could change (or read,
    /// for a secret) is refused where the keys are loaded.
    #[cfg(unix)]
    #[test]
    fn key_files_get_their_modes_and_lax_ones_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("keys");
        // SAFETY: umask(2) cannot fail; the old mask is put back below.
        let old = unsafe { libc::umask(0) };
        let made = generate(&dir, "T", &["UAV".to_string()]);
        unsafe { libc::umask(old) };
        made.unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join(TEAM_FILE)), 0o644);
        assert_eq!(mode(&dir.join("UAV.key")), 0o600);
        assert!(TeamKeys::load(&dir).is_ok() && Identity::load(&dir, "UAV").is_ok());
        key_modes::set(&dir.join("UAV.key"), 0o640).unwrap();
        let e = Identity::load(&dir, "UAV").err().unwrap();
        assert!(e.contains("its group may read it"), "{e}");
        key_modes::set(&dir.join("UAV.key"), 0o600).unwrap();
        key_modes::set(&dir.join(TEAM_FILE), 0o666).unwrap();
        let e = TeamKeys::load(&dir).unwrap_err();
        assert!(e.contains("could swap the team's public keys"), "{e}");
        key_modes::set(&dir.join(TEAM_FILE), 0o644).unwrap();
        key_modes::set(&dir, 0o777).unwrap();
        assert!(TeamKeys::load(&dir).is_err() && Identity::load(&dir, "UAV").is_err());
        assert!(generate(&dir, "T", &["UAV".to_string()]).is_err());
        key_modes::set(&dir, 0o700).unwrap();
    }
}

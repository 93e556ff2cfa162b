//! Headless Chromium (Debian's `chromium`, installed with apt-get when missing, as
//! scripts/test.sh does): the project's renderer of HTML and SVG, for tests that look at a
//! page or a drawing as a person would (a screenshot, decoded to pixels).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The chromium executable, installed with apt-get when it is missing.
pub fn chromium() -> PathBuf {
    let found = |name: &str| {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|c| c.is_file())
        })
    };
    if let Some(c) = found("chromium") {
        return c;
    }
    let ok = Command::new("sh")
        .args([
            "-c",
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium",
        ])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "chromium is missing and apt-get could not install it");
    found("chromium").expect("chromium after apt-get install")
}

/// Opens a page (HTML or SVG) headless in a window of `size` pixels: (what Chromium logged
/// on standard error, the screenshot as PNG bytes).
pub fn open(page: &Path, dir: &Path, size: (u32, u32)) -> (String, Vec<u8>) {
    let shot = dir.join("shot.png");
    let profile = dir.join("profile");
    let _ = std::fs::remove_dir_all(&profile);
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    (log, std::fs::read(&shot).expect("a screenshot"))
}

/// A decoded screenshot: RGB pixels, row by row.
pub struct Image {
    pub width: usize,
    pub height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Image {
    pub fn decode(png_bytes: &[u8]) -> Image {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        let step = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks(step)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Image {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }

    /// The pixels in `x` x `y` (clipped to the image) that have colour `rgb`, within a small
    /// tolerance.
    pub fn matching(
        &self,
        rgb: [u8; 3],
        x: std::ops::Range<usize>,
        y: std::ops::Range<usize>,
    ) -> Vec<(usize, usize)> {
        let near = |p: [u8; 3]| (0..3).all(|i| (p[i] as i32 - rgb[i] as i32).abs() <= 6);
        let mut out = Vec::new();
        for py in y.start..y.end.min(self.height) {
            for px in x.start..x.end.min(self.width) {
                if near(self.pixel(px, py)) {
                    out.push((px, py));
                }
            }
        }
        out
    }

    /// How many pixels of the whole image have colour `rgb` (within a small tolerance).
    pub fn count(&self, rgb: [u8; 3]) -> usize {
        self.matching(rgb, 0..self.width, 0..self.height).len()
    }
}

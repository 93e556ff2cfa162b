//! The record file: the magic line `AFFREC1\n`, then records, each framed as
//!
//! ```text
//! length (u32 LE) | !length (u32 LE) | payload (MessagePack) | CRC-32 of the payload (u32 LE)
//! ```
//!
//! A run appends one header, one record per agent tick (written and flushed when the tick
//! is done, so a run that dies loses at most the tick it was in) and one end record. Several
//! runs may follow one another in a file: a robot restarted by its service appends, and the
//! crashed run's record stays. Reading:
//!
//! - a tail that is not a whole record (the write a crash or power cut interrupted, or the
//!   zeros a file system leaves after a power cut) is ignored, and said so (`torn`);
//! - anything else that is not a whole, intact record is E0612 with its byte offset: a
//!   length that does not match its complement, a checksum that does not match before the
//!   end of the file, a payload that is not a record;
//! - only regular files are read (affect-files), one record at a time, each at most
//!   `MAX_RECORD` bytes: memory stays bounded however long the run was.

use super::{Header, Record};
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const MAGIC: &[u8; 8] = b"AFFREC1\n";

/// The largest record (a header with its memory files; a tick is tens of bytes).
pub const MAX_RECORD: u32 = 64 << 20;

/// Why a record file cannot be used: E0612 (not a record, or damaged, with the byte),
/// E0801..E0805 (not a regular file, unreadable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

fn damaged(path: &Path, at: u64, what: impl std::fmt::Display) -> RecordError {
    RecordError {
        code: "E0612",
        message: format!("`{}` is damaged at byte {at}: {what}", path.display()),
    }
}

fn io_error(path: &Path, e: io::Error) -> RecordError {
    RecordError {
        code: "E0805",
        message: format!("cannot read `{}`: {e}", path.display()),
    }
}

/// One run in a record file.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub header: Header,
    /// Where its header record starts.
    pub offset: u64,
    /// Its tick records.
    pub ticks: u64,
    /// Whether it has its end record (a run killed or cut by a power loss has not).
    pub ended: bool,
}

/// A record file, read through once: its runs, and the torn tail, if any.
pub struct RecordFile {
    path: PathBuf,
    pub runs: Vec<RunInfo>,
    /// Where the last whole record ends.
    pub good_len: u64,
    /// The bytes of a torn tail after `good_len` (0: none).
    pub torn: u64,
}

/// What reading one record found.
enum Next {
    Record(Record, u64),
    /// The file ends here.
    End,
    /// A torn tail starts here.
    Torn,
}

/// Reads records from `pos` on.
struct Reader {
    input: BufReader<File>,
    pos: u64,
    len: u64,
}

impl Reader {
    /// Fills `buf` from the file; the bytes read (fewer at the end of the file).
    fn fill(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.input.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        Ok(n)
    }

    /// Whether everything from the reader's place to the end of the file is zero bytes.
    fn zeros_to_end(&mut self) -> io::Result<bool> {
        let mut buf = [0u8; 4096];
        loop {
            let n = self.fill(&mut buf)?;
            if buf[..n].iter().any(|&b| b != 0) {
                return Ok(false);
            }
            if n < buf.len() {
                return Ok(true);
            }
        }
    }

    fn next(&mut self, path: &Path) -> Result<Next, RecordError> {
        let at = self.pos;
        let mut head = [0u8; 8];
        let n = self.fill(&mut head).map_err(|e| io_error(path, e))?;
        if n == 0 {
            return Ok(Next::End);
        }
        if n < 8 {
            return Ok(Next::Torn);
        }
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        let check = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
        if len != !check || len == 0 || len > MAX_RECORD {
            if head == [0; 8] && self.zeros_to_end().map_err(|e| io_error(path, e))? {
                return Ok(Next::Torn);
            }
            return Err(damaged(
                path,
                at,
                format!("a record's length field is broken ({len} / {check:#x})"),
            ));
        }
        let end = at + 8 + u64::from(len) + 4;
        if end > self.len {
            return Ok(Next::Torn);
        }
        let mut payload = vec![0u8; len as usize + 4];
        let n = self.fill(&mut payload).map_err(|e| io_error(path, e))?;
        if n < payload.len() {
            // The file shrank while it was read.
            return Ok(Next::Torn);
        }
        let crc = u32::from_le_bytes(payload[len as usize..].try_into().expect("4 bytes"));
        payload.truncate(len as usize);
        if crc32fast::hash(&payload) != crc {
            // The last record, written when the power went: torn. Before the end: damage.
            if end == self.len {
                return Ok(Next::Torn);
            }
            return Err(damaged(path, at, "the checksum does not match"));
        }
        let record: Record = rmp_serde::from_slice(&payload)
            .map_err(|e| damaged(path, at, format!("the record cannot be read ({e})")))?;
        self.pos = end;
        Ok(Next::Record(record, at))
    }
}

/// Opens a record for reading at its first record, after the magic line.
fn open(path: &Path) -> Result<(Reader, bool), RecordError> {
    let (file, meta) = affect_files::open_regular(path).map_err(|e| RecordError {
        code: e.code,
        message: e.message,
    })?;
    let mut r = Reader {
        input: BufReader::new(file),
        pos: 0,
        len: meta.len(),
    };
    let mut magic = [0u8; 8];
    let n = r.fill(&mut magic).map_err(|e| io_error(path, e))?;
    if magic[..n] != MAGIC[..n] {
        return Err(RecordError {
            code: "E0612",
            message: format!(
                "`{}` is not an affect record (it does not begin with `AFFREC1`)",
                path.display()
            ),
        });
    }
    r.pos = n as u64;
    // A file cut inside its magic line holds no run yet.
    Ok((r, n == MAGIC.len()))
}

impl RecordFile {
    /// Reads the file through, checking every record.
    pub fn scan(path: &Path) -> Result<RecordFile, RecordError> {
        let (mut r, whole) = open(path)?;
        let mut file = RecordFile {
            path: path.to_path_buf(),
            runs: Vec::new(),
            good_len: r.pos,
            torn: 0,
        };
        if !whole {
            file.torn = r.pos;
            file.good_len = 0;
            return Ok(file);
        }
        loop {
            match r.next(path)? {
                Next::End => break,
                Next::Torn => {
                    file.torn = r.len - r.pos;
                    break;
                }
                Next::Record(record, at) => {
                    file.good_len = r.pos;
                    match (record, file.runs.last_mut()) {
                        (Record::Header(h), _) => file.runs.push(RunInfo {
                            header: *h,
                            offset: at,
                            ticks: 0,
                            ended: false,
                        }),
                        (Record::Tick { .. }, Some(run)) if !run.ended => run.ticks += 1,
                        (Record::End { .. }, Some(run)) if !run.ended => run.ended = true,
                        _ => return Err(damaged(path, at, "a record outside a run")),
                    }
                }
            }
        }
        Ok(file)
    }

    /// The records of run `index` after its header, one at a time.
    pub fn frames(&self, index: usize) -> Result<Frames, RecordError> {
        let run = &self.runs[index];
        let (mut r, _) = open(&self.path)?;
        r.input
            .seek(SeekFrom::Start(run.offset))
            .map_err(|e| io_error(&self.path, e))?;
        r.pos = run.offset;
        let end = match self.runs.get(index + 1) {
            Some(next) => next.offset,
            None => self.good_len,
        };
        let mut frames = Frames {
            reader: r,
            end,
            path: self.path.clone(),
        };
        // The header was read by the scan.
        frames.read()?;
        Ok(frames)
    }

    /// A warning about the torn tail, if there is one.
    pub fn torn_warning(&self) -> Option<String> {
        (self.torn > 0).then(|| {
            format!(
                "`{}` ends in {} byte{} that are not a whole record (the run was stopped while writing, or the power went): ignored",
                self.path.display(),
                self.torn,
                if self.torn == 1 { "" } else { "s" }
            )
        })
    }
}

/// The records of one run, read as they are needed.
pub struct Frames {
    reader: Reader,
    end: u64,
    path: PathBuf,
}

impl Frames {
    /// The next record of the run; `None` after its last.
    pub fn read(&mut self) -> Result<Option<Record>, RecordError> {
        if self.reader.pos >= self.end {
            return Ok(None);
        }
        match self.reader.next(&self.path)? {
            Next::Record(r, _) => Ok(Some(r)),
            // The file changed since it was scanned.
            Next::End | Next::Torn => Ok(None),
        }
    }
}

/// Appends a run's records to a record file.
pub struct RecordWriter {
    file: File,
    buf: Vec<u8>,
    synced: Instant,
}

/// How often a recording run asks the kernel to put what it wrote on the disk: a process
/// that dies loses nothing written; a power cut loses at most about this much.
const SYNC_EVERY: Duration = Duration::from_secs(1);

impl RecordWriter {
    /// Opens `path` for a new run: a new file begins with the magic line; an existing
    /// record is appended to, its torn tail (a run that died while writing) cut off first,
    /// which the returned warning says. A file that is not a record, or a damaged one, is
    /// refused (E0612) and left as it is.
    pub fn open(path: &Path) -> Result<(RecordWriter, Option<String>), RecordError> {
        let cannot = |e: io::Error| RecordError {
            code: "E0612",
            message: format!("cannot write the record `{}`: {e}", path.display()),
        };
        let exists = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let mut warning = None;
        let mut options = std::fs::OpenOptions::new();
        options.read(true).append(true).create(true);
        if !exists {
            let mut file = options.open(path).map_err(cannot)?;
            refuse_special(path, &file)?;
            file.set_len(0).map_err(cannot)?;
            file.write_all(MAGIC).map_err(cannot)?;
            return Ok((RecordWriter::new(file), None));
        }
        let scanned = RecordFile::scan(path)?;
        let file = options.open(path).map_err(cannot)?;
        refuse_special(path, &file)?;
        if scanned.torn > 0 || scanned.good_len == 0 {
            warning = scanned.torn_warning().map(|w| format!("{w}; cut off"));
            file.set_len(scanned.good_len).map_err(cannot)?;
            if scanned.good_len == 0 {
                (&file).write_all(MAGIC).map_err(cannot)?;
            }
        }
        Ok((RecordWriter::new(file), warning))
    }

    fn new(file: File) -> RecordWriter {
        RecordWriter {
            file,
            buf: Vec::with_capacity(256),
            synced: Instant::now(),
        }
    }

    /// Writes one record whole, in one write. The frame is built in the writer's own buffer
    /// (the payload encoded in place, its length filled in after), not a new one per record.
    pub fn write(&mut self, record: &Record) -> io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; 8]);
        rmp_serde::encode::write(&mut self.buf, record).map_err(io::Error::other)?;
        let len = u32::try_from(self.buf.len() - 8)
            .ok()
            .filter(|&l| l <= MAX_RECORD)
            .ok_or_else(|| io::Error::other("a record larger than 64 MiB"))?;
        self.buf[..4].copy_from_slice(&len.to_le_bytes());
        self.buf[4..8].copy_from_slice(&(!len).to_le_bytes());
        let crc = crc32fast::hash(&self.buf[8..]);
        self.buf.extend_from_slice(&crc.to_le_bytes());
        self.file.write_all(&self.buf)?;
        if self.synced.elapsed() >= SYNC_EVERY {
            self.synced = Instant::now();
            self.file.sync_data()?;
        }
        Ok(())
    }

    /// Puts everything written on the disk.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }
}

/// Only a regular file holds a record (never a device or FIFO).
fn refuse_special(path: &Path, file: &File) -> Result<(), RecordError> {
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(()),
        _ => Err(RecordError {
            code: "E0801",
            message: format!(
                "`{}` is not a regular file: a record is written only to a regular file",
                path.display()
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::RunConfig;
    use crate::tape::entry::{Entry, Fail, Value};

    /// A path `name` in a new folder of the test's own (removed with the guard).
    fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        (dir, path)
    }

    fn tick(tick: u64) -> Record {
        Record::Tick {
            k: 0,
            tick,
            t_ms: tick as f64 * 100.0,
            entries: vec![
                (0, Entry::Read(Ok(Value::Num(0.25 * tick as f64)))),
                (
                    1,
                    Entry::Read(Err(Fail(0, "light".into(), "no ack".into()))),
                ),
            ],
            lines: 3,
            crc: 0xdead_beef,
        }
    }

    /// A record of one run (header, three ticks, end); where its last record begins.
    fn write_run(path: &Path) -> u64 {
        let header = Header::of_run("robot.affect", "00ff", &RunConfig::default(), None);
        let (mut w, warning) = RecordWriter::open(path).unwrap();
        assert_eq!(warning, None);
        w.write(&Record::Header(Box::new(header))).unwrap();
        for t in 0..3 {
            w.write(&tick(t)).unwrap();
        }
        w.sync().unwrap();
        let last = std::fs::metadata(path).unwrap().len();
        w.write(&Record::End {
            entries: vec![],
            lines: 1,
            crc: 7,
        })
        .unwrap();
        last
    }

    #[test]
    fn a_run_is_read_back_record_for_record() {
        let (_path_dir, path) = scratch("whole.rec");
        write_run(&path);
        let file = RecordFile::scan(&path).unwrap();
        assert_eq!(file.runs.len(), 1);
        assert_eq!(
            (file.runs[0].ticks, file.runs[0].ended, file.torn),
            (3, true, 0)
        );
        assert_eq!(file.runs[0].header.program, "robot.affect");
        let mut frames = file.frames(0).unwrap();
        for t in 0..3 {
            assert_eq!(frames.read().unwrap(), Some(tick(t)));
        }
        assert!(matches!(frames.read().unwrap(), Some(Record::End { .. })));
        assert_eq!(frames.read().unwrap(), None);
    }

    /// Cut anywhere, a record reads as the whole records before the cut, the rest a torn
    /// tail (never an error, never a record that was not written).
    #[test]
    fn a_cut_anywhere_is_a_torn_tail() {
        let (_path_dir, path) = scratch("cut.rec");
        write_run(&path);
        let bytes = std::fs::read(&path).unwrap();
        let (_cut_path_dir, cut_path) = scratch("cut-copy.rec");
        for cut in 1..bytes.len() {
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            let file = RecordFile::scan(&cut_path).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            assert_eq!(file.good_len + file.torn, cut as u64, "cut at {cut}");
            assert!(
                file.runs.iter().all(|r| r.ticks <= 3 && !r.ended),
                "cut at {cut}"
            );
        }
        // Zeros after the records (a power cut on some file systems) are a torn tail too.
        let mut zeros = bytes.clone();
        zeros.extend_from_slice(&[0; 300]);
        std::fs::write(&cut_path, &zeros).unwrap();
        let file = RecordFile::scan(&cut_path).unwrap();
        assert_eq!((file.torn, file.runs[0].ended), (300, true));
        assert!(file.torn_warning().unwrap().contains("300 bytes"));
    }

    /// A byte changed before the last record is E0612 at the damaged record's offset; in the
    /// last record, it is damage or a torn tail, never read as a record.
    #[test]
    fn a_changed_byte_is_found() {
        let (_path_dir, path) = scratch("flip.rec");
        let last = write_run(&path);
        let bytes = std::fs::read(&path).unwrap();
        let (_flip_path_dir, flip_path) = scratch("flip-copy.rec");
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            std::fs::write(&flip_path, &b).unwrap();
            match RecordFile::scan(&flip_path) {
                Err(e) => {
                    assert_eq!(e.code, "E0612", "byte {i}: {e}");
                    assert!(i < 8 || e.message.contains("at byte"), "byte {i}: {e}");
                }
                Ok(f) => assert!(i as u64 >= last && f.torn > 0, "byte {i} was read"),
            }
        }
    }

    #[test]
    fn appending_cuts_a_torn_tail_and_adds_a_run() {
        let (_path_dir, path) = scratch("append.rec");
        write_run(&path);
        let len = std::fs::metadata(&path).unwrap().len();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(len as usize - 3);
        std::fs::write(&path, &bytes).unwrap();
        let (mut w, warning) = RecordWriter::open(&path).unwrap();
        assert!(warning.unwrap().contains("cut off"));
        let header = Header::of_run("other.affect", "11", &RunConfig::default(), None);
        w.write(&Record::Header(Box::new(header))).unwrap();
        w.write(&tick(0)).unwrap();
        let file = RecordFile::scan(&path).unwrap();
        assert_eq!(file.torn, 0);
        let runs: Vec<(u64, bool)> = file.runs.iter().map(|r| (r.ticks, r.ended)).collect();
        assert_eq!(runs, [(3, false), (1, false)]);
        assert_eq!(file.frames(1).unwrap().read().unwrap(), Some(tick(0)));
        // Not a record: refused, and left alone.
        let (_other_dir, other) = scratch("notes.txt");
        std::fs::write(&other, "my notes\n").unwrap();
        assert_eq!(RecordWriter::open(&other).err().unwrap().code, "E0612");
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "my notes\n");
        assert_eq!(
            RecordFile::scan(Path::new("/dev/zero")).err().unwrap().code,
            "E0801"
        );
    }
}

//! A minimal NBD client and server launcher for the serve tests: fixed newstyle, NBD_OPT_GO,
//! simple replies; enough to write, read and flush, and to notice a server that died.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub struct Client {
    s: TcpStream,
    handle: u64,
    pub size_bytes: u64,
}

fn rd<const N: usize>(s: &mut TcpStream) -> std::io::Result<[u8; N]> {
    let mut b = [0u8; N];
    s.read_exact(&mut b)?;
    Ok(b)
}

impl Client {
    pub fn connect(addr: &str) -> std::io::Result<Client> {
        let mut s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        let hello = rd::<18>(&mut s)?;
        assert_eq!(&hello[..8], b"NBDMAGIC");
        s.write_all(&3u32.to_be_bytes())?; // fixed newstyle, no zeroes
        let mut opt = Vec::new();
        opt.extend_from_slice(&0x4948_4156_454F_5054u64.to_be_bytes());
        opt.extend_from_slice(&7u32.to_be_bytes()); // NBD_OPT_GO
        opt.extend_from_slice(&6u32.to_be_bytes());
        opt.extend_from_slice(&0u32.to_be_bytes()); // empty name
        opt.extend_from_slice(&0u16.to_be_bytes()); // no info requests
        s.write_all(&opt)?;
        let mut size_bytes = 0;
        loop {
            let h = rd::<20>(&mut s)?;
            let ty = u32::from_be_bytes([h[12], h[13], h[14], h[15]]);
            let len = u32::from_be_bytes([h[16], h[17], h[18], h[19]]) as usize;
            let mut data = vec![0u8; len];
            s.read_exact(&mut data)?;
            match ty {
                1 => break,
                3 if len >= 12 && data[0..2] == [0, 0] => {
                    size_bytes = u64::from_be_bytes(data[2..10].try_into().unwrap_or_default());
                }
                3 => {}
                other => return Err(std::io::Error::other(format!("option reply {other:#x}"))),
            }
        }
        Ok(Client { s, handle: 0, size_bytes })
    }

    fn request(&mut self, ty: u16, flags: u16, offset: u64, len: u32, data: &[u8]) -> std::io::Result<u32> {
        self.handle += 1;
        let mut r = Vec::with_capacity(28 + data.len());
        r.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        r.extend_from_slice(&flags.to_be_bytes());
        r.extend_from_slice(&ty.to_be_bytes());
        r.extend_from_slice(&self.handle.to_be_bytes());
        r.extend_from_slice(&offset.to_be_bytes());
        r.extend_from_slice(&len.to_be_bytes());
        r.extend_from_slice(data);
        self.s.write_all(&r)?;
        let h = rd::<16>(&mut self.s)?;
        if h[..4] != 0x6744_6698u32.to_be_bytes() || u64::from_be_bytes(h[8..16].try_into().unwrap_or_default()) != self.handle {
            return Err(std::io::Error::other("bad reply"));
        }
        Ok(u32::from_be_bytes([h[4], h[5], h[6], h[7]]))
    }

    /// Write; Ok(errno) — 0 on success.
    pub fn write(&mut self, offset: u64, data: &[u8], fua: bool) -> std::io::Result<u32> {
        self.request(1, if fua { 1 } else { 0 }, offset, data.len() as u32, data)
    }

    pub fn read(&mut self, offset: u64, len: u32) -> std::io::Result<Vec<u8>> {
        let err = self.request(0, 0, offset, len, &[])?;
        if err != 0 {
            return Err(std::io::Error::other(format!("read error {err}")));
        }
        let mut b = vec![0u8; len as usize];
        self.s.read_exact(&mut b)?;
        Ok(b)
    }

    pub fn flush(&mut self) -> std::io::Result<u32> {
        self.request(3, 0, 0, 0, &[])
    }

    pub fn disconnect(mut self) {
        self.handle += 1;
        let mut r = Vec::new();
        r.extend_from_slice(&0x2560_9513u32.to_be_bytes());
        r.extend_from_slice(&0u16.to_be_bytes());
        r.extend_from_slice(&2u16.to_be_bytes());
        r.extend_from_slice(&self.handle.to_be_bytes());
        r.extend_from_slice(&[0u8; 12]);
        let _ = self.s.write_all(&r);
    }
}

pub fn tierlab() -> &'static str {
    env!("CARGO_BIN_EXE_tierlab")
}

/// A `tierlab serve` child on an ephemeral port.
pub struct Served {
    pub child: Child,
    pub addr: String,
    pub ctl: PathBuf,
}

impl Served {
    pub fn start(dir: &Path, extra: &[&str], env: &[(&str, String)]) -> Served {
        match Self::try_start(dir, extra, env) {
            Ok(s) => s,
            Err(e) => panic!("tierlab serve did not start: {e}"),
        }
    }

    /// Start it; Err with its stderr if it exits before listening.
    pub fn try_start(dir: &Path, extra: &[&str], env: &[(&str, String)]) -> Result<Served, String> {
        Self::try_start_ctl(dir, Some(&dir.join("ctl")), extra, env)
    }

    /// Start it with this admin socket (None: the default one).
    pub fn try_start_ctl(dir: &Path, ctl: Option<&Path>, extra: &[&str], env: &[(&str, String)]) -> Result<Served, String> {
        let mut cmd = Command::new(tierlab());
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--json", "--threads", "2"]).arg("--ssd").arg(dir.join("ssd")).arg("--hdd").arg(dir.join("hdd"));
        if let Some(c) = ctl {
            cmd.arg("--ctl").arg(c);
        }
        cmd.args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start tierlab serve");
        let mut line = String::new();
        let out = child.stdout.take().expect("stdout");
        BufReader::new(out).read_line(&mut line).expect("read serve's first line");
        if line.is_empty() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
            return Err(format!("{status}: {err}"));
        }
        let v: serde_json::Value = serde_json::from_str(&line).expect("serve's JSON line");
        let addr = v["listening"].as_str().expect("listening").to_string();
        let ctl = PathBuf::from(v["ctl"].as_str().expect("ctl"));
        Ok(Served { child, addr, ctl })
    }

    /// Stop it as an operator would (SIGTERM: final checkpoint) and wait.
    pub fn stop(mut self) -> std::process::ExitStatus {
        // SAFETY: sending a signal to our own child.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().expect("wait for serve")
    }

    pub fn kill(self) {
        // Drop kills it.
    }
}

/// A failing test must not leave its server running.
impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn tool(name: &str) -> bool {
    let found = Command::new("sh").arg("-c").arg(format!("command -v {name}")).stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    if !found {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{name} is missing: .ci/run installs it");
        }
        eprintln!("note: {name} is not installed; skipping");
    }
    found
}

pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tierlab-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

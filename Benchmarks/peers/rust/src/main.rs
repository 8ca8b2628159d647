//! The rust `plist` crate (Debian librust-plist-dev) as a peer: binary and XML, read and write
//! (Benchmarks/peers/run.sh).
//!
//!     rust-plist-driver <operation> <input> <repeats> [<inner>]
//!
//! Reads <input> whole, runs the operation once untimed (a refused input fails here), then takes <repeats>
//! samples of <inner> (1) operations each on `Instant` (monotonic) and prints the median seconds per
//! operation and the peak resident memory (VmHWM), in the line every driver prints. What an operation makes
//! is freed inside its timing. Exit status 1: the input was refused; 3: the peer does not do this operation;
//! 64: usage.
use plist::Value;
use std::io::Cursor;
use std::process::exit;
use std::time::Instant;

fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0)
}

fn read(bytes: &[u8], binary: bool) -> Result<Value, plist::Error> {
    if binary {
        Value::from_reader(Cursor::new(bytes))
    } else {
        Value::from_reader_xml(Cursor::new(bytes))
    }
}

fn write(tree: &Value, binary: bool) -> Result<Vec<u8>, plist::Error> {
    let mut out = Vec::new();
    if binary {
        tree.to_writer_binary(&mut out)?;
    } else {
        tree.to_writer_xml(&mut out)?;
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 && args.len() != 5 {
        eprintln!("Usage: {} <operation> <input> <repeats> [<inner>]", args[0]);
        exit(64);
    }
    let op = args[1].as_str();
    let repeats: usize = args[3].parse().expect("repeats");
    let inner: usize = args.get(4).map_or(1, |s| s.parse().expect("inner"));
    let binary = op.starts_with("binary");
    let reading = op == "binary-read" || op == "xml-read";
    if !reading && op != "binary-write" && op != "xml-write" {
        eprintln!("plist codec only");
        exit(3);
    }
    let bytes = std::fs::read(&args[2]).unwrap_or_else(|e| {
        eprintln!("{}: {}", args[2], e);
        exit(1)
    });
    let refused = |e: plist::Error| -> ! {
        eprintln!("{}", e);
        exit(1)
    };
    let tree = if reading { None } else { Some(read(&bytes, binary).unwrap_or_else(|e| refused(e))) };
    let body = || -> Result<(), plist::Error> {
        match &tree {
            None => drop(read(&bytes, binary)?),
            Some(tree) => drop(write(tree, binary)?),
        }
        Ok(())
    };
    body().unwrap_or_else(|e| refused(e));
    let mut samples: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..inner {
                body().unwrap_or_else(|e| refused(e));
            }
            start.elapsed().as_secs_f64() / inner as f64
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = samples.len();
    let median = if n % 2 == 1 { samples[n / 2] } else { (samples[n / 2 - 1] + samples[n / 2]) / 2.0 };
    println!(
        "PEER op={} seconds={:.9} peak_kb={} repeats={} inner={} input_bytes={}",
        op, median, peak_kb(), repeats, inner, bytes.len()
    );
}

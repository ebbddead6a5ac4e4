//! Writing the index file: in pieces through a hashing buffer, and from 32,000 entries with
//! the hashing and writing on a second thread.

/// The pieces the index file is written in (and hashed in) on one thread.
pub(super) const PIECE: usize = 256 << 10;

/// The pieces handed across threads: smaller, since up to four are alive at once.
pub(super) const PIPE_PIECE: usize = 128 << 10;

/// From this many entries (~2.8 MiB of index) the index is hashed and written on a second
/// thread. Measured here: at 100,000 entries it saves ~3.7 ms of a 33 ms undo; at 10,000 it
/// cost 0.2 ms (handing four pieces across threads costs more than the overlap saves).
pub(super) const PIPELINE_ENTRIES: usize = 32_000;

/// A writer that hands full pieces to a second thread, which hashes and writes them while
/// this one serialises the next: serialising, hashing and writing a 100,000-entry index each
/// take a few milliseconds, and on one thread they add up. One piece waits while the worker
/// hashes another, and their buffers come back to be reused: with the one being filled, the
/// pieces hold at most 4 x 128 KiB.
pub(super) struct Pipelined<'scope, W> {
    piece: Vec<u8>,
    full: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    empty: std::sync::mpsc::Receiver<Vec<u8>>,
    worker: std::thread::ScopedJoinHandle<'scope, std::io::Result<Hashing<W>>>,
}

impl<'scope, W: std::io::Write + Send + 'scope> Pipelined<'scope, W> {
    pub(super) fn start<'env>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        mut hashing: Hashing<W>,
    ) -> Self {
        let (full, pieces) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let (give_back, empty) = std::sync::mpsc::channel::<Vec<u8>>();
        let worker = scope.spawn(move || {
            use std::io::Write;
            for mut piece in pieces {
                hashing.write_all(&piece)?;
                piece.clear();
                // The serialising side may have finished already; the piece is just freed.
                let _ = give_back.send(piece);
            }
            Ok(hashing)
        });
        Pipelined {
            piece: Vec::with_capacity(PIPE_PIECE),
            full: Some(full),
            empty,
            worker,
        }
    }

    /// Hands the current piece to the worker and starts the next in a returned buffer.
    fn hand_over(&mut self) -> std::io::Result<()> {
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(PIPE_PIECE));
        let piece = std::mem::replace(&mut self.piece, next);
        let sent = self.full.as_ref().map(|f| f.send(piece));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(std::io::Error::other("the index writer stopped")),
        }
    }

    /// Sends what is left and waits for the worker: the hashing writer, everything written.
    pub(super) fn finish(mut self) -> std::io::Result<Hashing<W>> {
        let last = if self.piece.is_empty() {
            Ok(())
        } else {
            self.hand_over()
        };
        self.full = None;
        let hashing = self
            .worker
            .join()
            .map_err(|_| std::io::Error::other("the index writer stopped unexpectedly"))??;
        last.map(|()| hashing)
    }
}

impl<'scope, W: std::io::Write + Send + 'scope> std::io::Write for Pipelined<'scope, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Handed over before it would overflow: a piece never grows past its capacity.
        if !self.piece.is_empty() && self.piece.len() + buf.len() > PIPE_PIECE {
            self.hand_over()?;
        }
        self.piece.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A writer that hashes what passes through it (the index file's trailing checksum). The
/// hash is RustCrypto's plain SHA-1 (SHA-NI where the CPU has it), not the
/// collision-detecting one gix uses for object ids: the trailer only guards the file against
/// corruption, and git itself (2.47 on) checksums its index and packs with a fast
/// non-collision-detecting SHA-1. Object ids never go through this.
pub(super) struct Hashing<W> {
    pub(super) inner: W,
    pub(super) hasher: sha1::Sha1,
}

impl<W: std::io::Write> std::io::Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha1::Digest;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

//! Byte-addressed linear memory with bounds, lifetime and read-only checks.
//!
//! The address space has four parts, each far from the others so that a stray pointer
//! lands in no object:
//!
//! | range | what |
//! |---|---|
//! | `0 .. 4096` | null guard page: every access traps with [`TrapKind::NullDeref`] |
//! | [`FUNC_BASE`] `+ 16 * f` | function addresses (not readable; calling one is an indirect call) |
//! | `globals_base ..` | globals, in module order, each aligned and followed by a redzone |
//! | [`HEAP_BASE`] `..` | heap blocks from `malloc`/`calloc`/`realloc`, bump-allocated, never reused |
//! | [`STACK_BASE`] `..` | `alloca`s, growing upward, released when their frame returns |
//!
//! Every byte has a state (invalid, writable, read-only, freed) in a byte map beside the
//! data. An access is valid when its first and last bytes are valid: every object is
//! surrounded by redzones of [`REDZONE`] bytes, more than the largest scalar access (8
//! bytes), so an access cannot straddle two objects. Bulk operations (`memcpy`, `memset`)
//! check every byte. Regions grow lazily and [`Memory::reset`] costs what the previous run
//! used, not what the budgets allow: the span of the globals that stores dirtied is restored
//! from their initial image, stack and heap are emptied.
//!
//! Loads and stores are little-endian. Integer loads are zero-extended and masked to the
//! type's width; an `i1` occupies one byte.

use crate::trap::{ExecError, TrapKind};
use fpir::{AddrBase, Module, Type};

/// Addresses below this trap as null dereferences.
pub const NULL_GUARD: u64 = 4096;
/// Address of function 0; function `f` lives at `FUNC_BASE + FUNC_STRIDE * f`.
pub const FUNC_BASE: u64 = 0x10_0000;
/// Distance between consecutive function addresses.
pub const FUNC_STRIDE: u64 = 16;
/// Lowest address the globals may start at.
pub const GLOBALS_MIN_BASE: u64 = 0x40_0000;
/// First address of the heap region.
pub const HEAP_BASE: u64 = 0x1000_0000_0000;
/// First address of the stack region.
pub const STACK_BASE: u64 = 0x7ff0_0000_0000;
/// Invalid bytes around every object (greater than the largest scalar access).
pub const REDZONE: u64 = 16;
/// The largest slack [`Memory::access_slack`] reports: a guard's distance needs no more.
pub const SLACK_CAP: u64 = 1 << 16;
/// Largest total size of the globals the interpreter lays out.
pub const MAX_GLOBALS_BYTES: u64 = 1 << 30;

const INVALID: u8 = 0;
const RW: u8 = 1;
const RO: u8 = 2;
const FREED: u8 = 3;

const GLOBALS: usize = 0;
const HEAP: usize = 1;
const STACK: usize = 2;

/// One contiguous region: data bytes and their states, both at least `used` long. The
/// vectors keep their length across resets so that a run does not pay for growing them
/// again; bytes from `used` on are always zero and invalid, as in a freshly grown region.
#[derive(Clone, Debug)]
struct Region {
    base: u64,
    bytes: Vec<u8>,
    state: Vec<u8>,
    /// The laid-out part: everything a run has grown the region to since the last reset.
    used: usize,
}

impl Region {
    fn new(base: u64) -> Region {
        Region {
            base,
            bytes: Vec::new(),
            state: Vec::new(),
            used: 0,
        }
    }

    #[inline]
    fn grow_to(&mut self, len: usize) {
        if self.used < len {
            if self.bytes.len() < len {
                self.bytes.resize(len, 0);
                self.state.resize(len, INVALID);
            }
            self.used = len;
        }
    }

    /// Empties the region: zero and invalid again up to `used`, the vectors kept.
    fn clear(&mut self) {
        if self.used == 0 {
            return;
        }
        self.bytes[..self.used].fill(0);
        self.state[..self.used].fill(INVALID);
        self.used = 0;
    }

    /// The offset of an `n`-byte scalar access at `addr` (`n` in 1..=8) when its first and
    /// last bytes are readable (or writable); see the module docs for why that suffices.
    #[inline]
    fn scalar(&self, addr: u64, n: usize, write: bool) -> Option<usize> {
        // Below the base the offset wraps around to far beyond the states.
        let off = addr.wrapping_sub(self.base) as usize;
        let len = self.state.len();
        if off >= len || len - off < n || n == 0 {
            return None;
        }
        // SAFETY: `1 <= n` and `off + n <= state.len()`.
        let (first, last) = unsafe {
            (
                *self.state.get_unchecked(off),
                *self.state.get_unchecked(off + n - 1),
            )
        };
        let ok = if write {
            first == RW && last == RW
        } else {
            (first == RW || first == RO) && (last == RW || last == RO)
        };
        ok.then_some(off)
    }

    /// Reads `n` (1..=8) bytes at `off`, little-endian, zero-extended; `off` comes from
    /// [`Region::scalar`].
    #[inline]
    fn read(&self, off: usize, n: usize) -> u64 {
        debug_assert!(off + n <= self.bytes.len());
        // SAFETY: `scalar` checked `off + n <= state.len()`, and `bytes` and `state` always
        // have the same length (they only grow together, in `grow_to`).
        let bytes = unsafe { self.bytes.get_unchecked(off..off + n) };
        match n {
            8 => u64::from_le_bytes(bytes.try_into().unwrap_or_default()),
            4 => u64::from(u32::from_le_bytes(bytes.try_into().unwrap_or_default())),
            _ => {
                let mut buf = [0u8; 8];
                buf[..n].copy_from_slice(bytes);
                u64::from_le_bytes(buf)
            }
        }
    }

    /// Writes the low `n` (1..=8) bytes of `bits` at `off`; `off` comes from
    /// [`Region::scalar`].
    #[inline]
    fn write(&mut self, off: usize, n: usize, bits: u64) {
        debug_assert!(off + n <= self.bytes.len());
        // SAFETY: as in `read`.
        let bytes = unsafe { self.bytes.get_unchecked_mut(off..off + n) };
        bytes.copy_from_slice(&bits.to_le_bytes()[..n]);
    }
}

/// Bytes of a scalar access of type `ty`: its [`Type::bytes`], which is in 1..=8 for every
/// type. The clamp tells the compiler so: without it `load` and `store` keep checks for
/// sizes that cannot occur and grow too large to inline into the interpreter's loop
/// (measured: 6 % more instructions per call of musl's `exp`).
#[inline]
pub(crate) fn access_size(ty: Type) -> usize {
    (ty.bytes() as usize).clamp(1, 8)
}

/// A heap block.
#[derive(Clone, Copy, Debug)]
struct HeapBlock {
    addr: u64,
    size: u64,
    freed: bool,
}

/// The memory of one interpreter: globals, stack and heap.
#[derive(Clone, Debug)]
pub struct Memory {
    regions: [Region; 3],
    global_init: Vec<u8>,
    /// Byte range of the globals written since the last reset (empty when `lo >= hi`).
    dirty: (usize, usize),
    global_addrs: Vec<u64>,
    /// Size of each global, parallel to `global_addrs`.
    global_sizes: Vec<u64>,
    func_count: u64,
    /// Stack pointer, as an offset in the stack region.
    sp: u64,
    /// Every stack byte from this offset on is invalid: the end of the highest live
    /// `alloca` (a slot [`Memory::reserve`]d for a register takes no bytes), so releasing
    /// frames above it costs nothing.
    live_top: u64,
    stack_limit: u64,
    /// End of the last heap block, as an offset in the heap region.
    heap_top: u64,
    heap_limit: u64,
    blocks: Vec<HeapBlock>,
}

#[inline]
fn round_up(x: u64, align: u64) -> Option<u64> {
    let align = align.max(1);
    let y = x.checked_add(align - 1)?;
    Some(if align.is_power_of_two() {
        y & !(align - 1)
    } else {
        y / align * align
    })
}

impl Memory {
    /// Lays out the globals of `module` (patching their relocations) with the given
    /// stack and heap budgets in bytes.
    pub fn new(module: &Module, stack_bytes: u64, heap_bytes: u64) -> Result<Memory, ExecError> {
        let func_count = module.funcs.len() as u64;
        let funcs_end = FUNC_BASE + FUNC_STRIDE * func_count;
        let base = GLOBALS_MIN_BASE.max(round_up(funcs_end + NULL_GUARD, NULL_GUARD).unwrap_or(0));
        let too_large = || ExecError::InvalidModule("globals exceed 1 GiB".into());
        let mut addrs = Vec::with_capacity(module.globals.len());
        let mut off = 0u64;
        for g in module.globals.values() {
            off = off
                .checked_add(REDZONE)
                .and_then(|o| round_up(o, u64::from(g.align)))
                .ok_or_else(too_large)?;
            addrs.push(base + off);
            off = off.checked_add(g.init.len() as u64).ok_or_else(too_large)?;
            if off > MAX_GLOBALS_BYTES {
                return Err(too_large());
            }
        }
        let total = (off + REDZONE) as usize;
        let mut region = Region::new(base);
        region.grow_to(total);
        for (g, &addr) in module.globals.values().zip(&addrs) {
            let start = (addr - base) as usize;
            let end = start + g.init.len();
            region.bytes[start..end].copy_from_slice(&g.init);
            region.state[start..end].fill(if g.constant { RO } else { RW });
            for r in &g.relocs {
                let at = usize::try_from(r.at)
                    .ok()
                    .filter(|&at| at.checked_add(8).is_some_and(|e| e <= g.init.len()));
                let Some(at) = at else {
                    return Err(ExecError::InvalidModule(format!(
                        "relocation at {} outside global `{}`",
                        r.at, g.name
                    )));
                };
                let target = match r.target {
                    AddrBase::Global(t) => *addrs.get(t.0 as usize).ok_or_else(|| {
                        ExecError::InvalidModule(format!("relocation to unknown global {t}"))
                    })?,
                    AddrBase::Func(f) if u64::from(f.0) < func_count => func_addr(f.0),
                    AddrBase::Func(f) => {
                        return Err(ExecError::InvalidModule(format!(
                            "relocation to unknown function {f}"
                        )))
                    }
                };
                let value = target.wrapping_add(r.addend as u64);
                region.bytes[start + at..start + at + 8].copy_from_slice(&value.to_le_bytes());
            }
        }
        Ok(Memory {
            global_init: region.bytes.clone(),
            regions: [region, Region::new(HEAP_BASE), Region::new(STACK_BASE)],
            dirty: (usize::MAX, 0),
            global_addrs: addrs,
            global_sizes: module
                .globals
                .values()
                .map(|g| g.init.len() as u64)
                .collect(),
            func_count,
            sp: 0,
            live_top: 0,
            stack_limit: stack_bytes,
            heap_top: 0,
            heap_limit: heap_bytes,
            blocks: Vec::new(),
        })
    }

    /// Restores the state right after [`Memory::new`]: initial globals, empty stack and heap.
    pub fn reset(&mut self) {
        let (lo, hi) = self.dirty;
        if lo < hi {
            self.regions[GLOBALS].bytes[lo..hi].copy_from_slice(&self.global_init[lo..hi]);
            self.dirty = (usize::MAX, 0);
        }
        self.regions[STACK].clear();
        self.regions[HEAP].clear();
        self.sp = 0;
        self.live_top = 0;
        self.heap_top = 0;
        self.blocks.clear();
    }

    /// Address of global number `index`.
    pub fn global_addr(&self, index: usize) -> Option<u64> {
        self.global_addrs.get(index).copied()
    }

    /// The function whose address is `addr`, if any.
    pub fn func_at(&self, addr: u64) -> Option<u32> {
        let off = addr.checked_sub(FUNC_BASE)?;
        let index = off / FUNC_STRIDE;
        (off % FUNC_STRIDE == 0 && index < self.func_count).then_some(index as u32)
    }

    #[inline]
    fn region_of(addr: u64) -> usize {
        if addr >= STACK_BASE {
            STACK
        } else if addr >= HEAP_BASE {
            HEAP
        } else {
            GLOBALS
        }
    }

    /// Checks every byte of an access of `len >= 1` bytes.
    fn check_range(&self, addr: u64, len: u64, write: bool) -> Result<(usize, usize), TrapKind> {
        let r = Self::region_of(addr);
        let region = &self.regions[r];
        let range = addr
            .checked_sub(region.base)
            .and_then(|off| Some((off, off.checked_add(len)?)))
            .filter(|&(_, end)| end <= region.used as u64);
        if let Some((off, end)) = range {
            let states = &region.state[off as usize..end as usize];
            let ok = if write {
                states.iter().all(|&s| s == RW)
            } else {
                states.iter().all(|&s| s == RW || s == RO)
            };
            if ok {
                return Ok((r, off as usize));
            }
        }
        Err(self.fault(addr, len, write))
    }

    /// Classifies a failed access.
    fn fault(&self, addr: u64, size: u64, write: bool) -> TrapKind {
        if addr < NULL_GUARD {
            return TrapKind::NullDeref { addr };
        }
        let region = &self.regions[Self::region_of(addr)];
        if let Some(off) = addr.checked_sub(region.base) {
            let states = region
                .state
                .iter()
                .skip(usize::try_from(off).unwrap_or(usize::MAX))
                .take(usize::try_from(size).unwrap_or(usize::MAX));
            for (i, &s) in states.enumerate() {
                let at = addr + i as u64;
                match s {
                    FREED => return TrapKind::UseAfterFree { addr: at },
                    RO if write => return TrapKind::ReadOnlyWrite { addr: at },
                    RW | RO => {}
                    _ => break,
                }
            }
        }
        TrapKind::OutOfBounds { addr, size }
    }

    /// How far, in bytes, an access of `size` bytes at `addr` could move either way and
    /// stay inside the object it touches (at most [`SLACK_CAP`]); -1 when the access
    /// traps because a byte it touches is not readable. An access of no bytes cannot
    /// trap. Trap guards use it as a branch distance ([`fpir::guard`]).
    pub fn access_slack(&self, addr: u64, size: u64) -> i64 {
        if size == 0 {
            return SLACK_CAP as i64;
        }
        if addr < NULL_GUARD || self.check_range(addr, size, false).is_err() {
            return -1;
        }
        let end = addr.saturating_add(size);
        let (start, stop) = match Self::region_of(addr) {
            // A readable byte of the globals or the heap lies in a global or a block.
            GLOBALS => self.global_around(addr),
            HEAP => {
                let i = self.blocks.partition_point(|b| b.addr <= addr);
                match i.checked_sub(1).map(|i| self.blocks[i]) {
                    Some(b) => (b.addr, b.addr + b.size),
                    None => (addr, end),
                }
            }
            _ => self.scan_object(addr, end),
        };
        let before = addr.saturating_sub(start);
        let after = stop.saturating_sub(end);
        before.min(after).min(SLACK_CAP) as i64
    }

    /// The bytes of the global containing `addr`: the last one starting at or below it
    /// (globals are laid out in order).
    fn global_around(&self, addr: u64) -> (u64, u64) {
        let i = self.global_addrs.partition_point(|&s| s <= addr);
        match i.checked_sub(1) {
            Some(i) => (
                self.global_addrs[i],
                self.global_addrs[i] + self.global_sizes[i],
            ),
            None => (addr, addr),
        }
    }

    /// The readable bytes around `addr..end`, scanning at most [`SLACK_CAP`] each way.
    fn scan_object(&self, addr: u64, end: u64) -> (u64, u64) {
        let region = &self.regions[Self::region_of(addr)];
        let readable = |a: u64| {
            a.checked_sub(region.base)
                .and_then(|off| region.state.get(usize::try_from(off).ok()?))
                .is_some_and(|&s| s == RW || s == RO)
        };
        let mut start = addr;
        while addr - start < SLACK_CAP && start > region.base && readable(start - 1) {
            start -= 1;
        }
        let mut stop = end;
        while stop - end < SLACK_CAP && readable(stop) {
            stop += 1;
        }
        (start, stop)
    }

    /// Loads a scalar of type `ty`, returning its bits zero-extended (integers masked to
    /// their width).
    #[inline]
    pub fn load(&self, ty: Type, addr: u64) -> Result<u64, TrapKind> {
        let n = access_size(ty);
        let region = &self.regions[Self::region_of(addr)];
        match region.scalar(addr, n, false) {
            Some(off) => Ok(region.read(off, n) & ty.mask()),
            None => Err(self.fault(addr, n as u64, false)),
        }
    }

    /// Records that `len` bytes of the globals at offset `off` are written.
    #[inline]
    fn mark_dirty(&mut self, off: usize, len: usize) {
        self.dirty = (self.dirty.0.min(off), self.dirty.1.max(off + len));
    }

    /// Stores the low `ty.bytes()` bytes of `bits`.
    #[inline]
    pub fn store(&mut self, ty: Type, addr: u64, bits: u64) -> Result<(), TrapKind> {
        let n = access_size(ty);
        let r = Self::region_of(addr);
        let Some(off) = self.regions[r].scalar(addr, n, true) else {
            return Err(self.fault(addr, n as u64, true));
        };
        if r == GLOBALS {
            self.mark_dirty(off, n);
        }
        self.regions[r].write(off, n, bits);
        Ok(())
    }

    /// Reads a scalar like [`Memory::load`] but ignoring byte states (to inspect memory
    /// after a run, even freed blocks); `None` outside the laid-out part of every region.
    pub fn peek(&self, ty: Type, addr: u64) -> Option<u64> {
        let n = access_size(ty);
        let region = &self.regions[Self::region_of(addr)];
        let off = usize::try_from(addr.checked_sub(region.base)?).ok()?;
        let bytes = region.bytes[..region.used].get(off..off.checked_add(n)?)?;
        let mut buf = [0u8; 8];
        buf[..n].copy_from_slice(bytes);
        Some(u64::from_le_bytes(buf) & ty.mask())
    }

    /// Reads `len` bytes (every byte must be readable).
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<&[u8], TrapKind> {
        if len == 0 {
            return Ok(&[]);
        }
        let (r, off) = self.check_range(addr, len, false)?;
        Ok(&self.regions[r].bytes[off..off + len as usize])
    }

    /// Writes `data` (every byte must be writable).
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), TrapKind> {
        if data.is_empty() {
            return Ok(());
        }
        let (r, off) = self.check_range(addr, data.len() as u64, true)?;
        if r == GLOBALS {
            self.mark_dirty(off, data.len());
        }
        self.regions[r].bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// `memmove(dst, src, len)`: copies `len` bytes; the ranges may overlap.
    pub fn copy(&mut self, dst: u64, src: u64, len: u64) -> Result<(), TrapKind> {
        if len == 0 {
            return Ok(());
        }
        let (rs, so) = self.check_range(src, len, false)?;
        let (rd, d) = self.check_range(dst, len, true)?;
        let n = len as usize;
        if rd == GLOBALS {
            self.mark_dirty(d, n);
        }
        if rs == rd {
            self.regions[rd].bytes.copy_within(so..so + n, d);
        } else {
            let (lo, hi) = self.regions.split_at_mut(rs.max(rd));
            let (src_region, dst_region) = if rs < rd {
                (&lo[rs], &mut hi[0])
            } else {
                (&hi[0], &mut lo[rd])
            };
            dst_region.bytes[d..d + n].copy_from_slice(&src_region.bytes[so..so + n]);
        }
        Ok(())
    }

    /// `memset(dst, byte, len)`.
    pub fn fill(&mut self, dst: u64, byte: u8, len: u64) -> Result<(), TrapKind> {
        if len == 0 {
            return Ok(());
        }
        let (r, off) = self.check_range(dst, len, true)?;
        if r == GLOBALS {
            self.mark_dirty(off, len as usize);
        }
        self.regions[r].bytes[off..off + len as usize].fill(byte);
        Ok(())
    }

    /// The current stack pointer (the address right after the last `alloca`).
    #[inline]
    pub fn stack_pointer(&self) -> u64 {
        STACK_BASE + self.sp
    }

    /// Allocates `size` bytes on the stack aligned to `align`, preceded by a redzone.
    #[inline]
    pub fn alloca(&mut self, size: u64, align: u64) -> Result<u64, TrapKind> {
        let at = self.reserve(size, align)?;
        let start = at - STACK_BASE;
        let region = &mut self.regions[STACK];
        region.grow_to((self.sp + REDZONE) as usize);
        region.state[start as usize..self.sp as usize].fill(RW);
        self.live_top = self.sp;
        Ok(at)
    }

    /// Moves the stack pointer as [`Memory::alloca`] does but leaves the bytes invalid
    /// (and the region unchanged): the stack slot of an `alloca` whose value the
    /// interpreter keeps in a register, which no access can reach.
    #[inline]
    pub(crate) fn reserve(&mut self, size: u64, align: u64) -> Result<u64, TrapKind> {
        let start = (STACK_BASE + self.sp)
            .checked_add(REDZONE)
            .and_then(|a| round_up(a, align))
            .ok_or(TrapKind::StackOverflow)?
            - STACK_BASE;
        let end = start.checked_add(size).ok_or(TrapKind::StackOverflow)?;
        if end.saturating_add(REDZONE) > self.stack_limit {
            return Err(TrapKind::StackOverflow);
        }
        self.sp = end;
        Ok(STACK_BASE + start)
    }

    /// [`Memory::reserve`] for a register cell (see `promote`): `size` is at most 8 and
    /// `align` a power of two that fits a `u32`, so below a stack pointer of 2^40 no sum
    /// overflows, and [`STACK_BASE`], a multiple of 2^36, keeps the rounding of offsets
    /// the same as that of addresses. The arithmetic is then `reserve`'s without its
    /// overflow checks.
    #[inline]
    pub(crate) fn reserve_cell(&mut self, size: u64, align: u64) -> Result<(), TrapKind> {
        debug_assert!(size <= 8 && align.is_power_of_two() && align <= 1 << 31);
        if self.sp >= 1 << 40 {
            return self.reserve(size, align).map(|_| ());
        }
        let end = ((self.sp + REDZONE + align - 1) & !(align - 1)) + size;
        if end + REDZONE > self.stack_limit {
            return Err(TrapKind::StackOverflow);
        }
        self.sp = end;
        Ok(())
    }

    /// The stack pointer, end of the highest live `alloca` and stack limit, for compiled
    /// code that reserves register cells and releases frames inline (`jit`).
    ///
    /// # Safety
    /// `mem` points at a live `Memory`.
    pub(crate) unsafe fn stack_words(mem: *mut Memory) -> (*mut u64, *const u64, u64) {
        // SAFETY: `mem` points at a live `Memory` (the contract); taking raw places
        // creates no reference that could outlive this call.
        unsafe {
            (
                &raw mut (*mem).sp,
                &raw const (*mem).live_top,
                (*mem).stack_limit,
            )
        }
    }

    /// Releases every `alloca` made since the stack pointer was `mark`
    /// (a value of [`Memory::stack_pointer`]); marks above the current pointer are ignored.
    #[inline]
    pub fn stack_release(&mut self, mark: u64) {
        let Some(off) = mark.checked_sub(STACK_BASE) else {
            return;
        };
        if off < self.sp {
            if off < self.live_top {
                self.invalidate_above(off);
            }
            self.sp = off;
        }
    }

    /// Marks the live stack bytes from offset `off` on invalid (out of line: releasing
    /// frames that hold only register cells skips it).
    fn invalidate_above(&mut self, off: u64) {
        let region = &mut self.regions[STACK];
        region.state[off as usize..self.live_top as usize].fill(INVALID);
        self.live_top = off;
    }

    /// `malloc(size)`: a fresh zeroed block, or NULL (0) when `size` exceeds the whole heap
    /// budget; [`TrapKind::OutOfMemory`] when the budget is used up.
    pub fn malloc(&mut self, size: u64) -> Result<u64, TrapKind> {
        if size > self.heap_limit {
            return Ok(0);
        }
        let start = round_up(self.heap_top + REDZONE, 16).ok_or(TrapKind::OutOfMemory)?;
        let end = start.checked_add(size).ok_or(TrapKind::OutOfMemory)?;
        if end.saturating_add(REDZONE) > self.heap_limit {
            return Err(TrapKind::OutOfMemory);
        }
        let region = &mut self.regions[HEAP];
        region.grow_to((end + REDZONE) as usize);
        region.state[start as usize..end as usize].fill(RW);
        self.heap_top = end;
        let addr = HEAP_BASE + start;
        self.blocks.push(HeapBlock {
            addr,
            size,
            freed: false,
        });
        Ok(addr)
    }

    fn live_block(&self, addr: u64) -> Result<usize, TrapKind> {
        match self.blocks.binary_search_by_key(&addr, |b| b.addr) {
            Ok(i) if !self.blocks[i].freed => Ok(i),
            _ => Err(TrapKind::InvalidFree { addr }),
        }
    }

    /// Size of the live heap block starting at `addr` ([`TrapKind::InvalidFree`] if none).
    pub fn block_size(&self, addr: u64) -> Result<u64, TrapKind> {
        self.live_block(addr).map(|i| self.blocks[i].size)
    }

    /// `free(addr)`: NULL is ignored; anything but the start of a live block traps.
    pub fn free(&mut self, addr: u64) -> Result<(), TrapKind> {
        if addr == 0 {
            return Ok(());
        }
        let i = self.live_block(addr)?;
        let block = &mut self.blocks[i];
        block.freed = true;
        let start = (block.addr - HEAP_BASE) as usize;
        self.regions[HEAP].state[start..start + block.size as usize].fill(FREED);
        Ok(())
    }
}

/// The address of function number `index`.
pub fn func_addr(index: u32) -> u64 {
    FUNC_BASE + FUNC_STRIDE * u64::from(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpir::{GlobalData, Module};

    fn module_with_globals() -> Module {
        let mut m = Module::default();
        m.globals.push(GlobalData {
            name: "a".into(),
            init: vec![1, 2, 3, 4],
            align: 4,
            constant: false,
            relocs: vec![],
        });
        m.globals.push(GlobalData {
            name: "c".into(),
            init: vec![9; 8],
            align: 8,
            constant: true,
            relocs: vec![],
        });
        m
    }

    #[test]
    fn globals_are_laid_out_and_restored() {
        let m = module_with_globals();
        let mut mem = Memory::new(&m, 1 << 20, 1 << 20).unwrap();
        let a = mem.global_addr(0).unwrap();
        let c = mem.global_addr(1).unwrap();
        assert_eq!(mem.load(Type::I32, a).unwrap(), 0x0403_0201);
        assert_eq!(mem.load(Type::I8, c).unwrap(), 9);
        mem.store(Type::I32, a, 7).unwrap();
        assert_eq!(
            mem.store(Type::I8, c, 1),
            Err(TrapKind::ReadOnlyWrite { addr: c })
        );
        assert!(matches!(
            mem.load(Type::I64, a),
            Err(TrapKind::OutOfBounds { .. })
        ));
        mem.reset();
        assert_eq!(mem.load(Type::I32, a).unwrap(), 0x0403_0201);
    }

    #[test]
    fn heap_tracks_lifetimes() {
        let mut mem = Memory::new(&Module::default(), 1 << 20, 1 << 20).unwrap();
        let p = mem.malloc(10).unwrap();
        mem.store(Type::Int(16), p + 8, 0xffff).unwrap();
        assert!(mem.store(Type::Int(16), p + 9, 0).is_err());
        mem.free(p).unwrap();
        assert_eq!(
            mem.load(Type::I8, p),
            Err(TrapKind::UseAfterFree { addr: p })
        );
        assert_eq!(mem.free(p), Err(TrapKind::InvalidFree { addr: p }));
        assert_eq!(mem.malloc(1 << 30), Ok(0));
        assert_eq!(mem.load(Type::I8, 8), Err(TrapKind::NullDeref { addr: 8 }));
    }

    #[test]
    fn stack_releases_frames() {
        let mut mem = Memory::new(&Module::default(), 4096, 0).unwrap();
        let mark = mem.stack_pointer();
        let p = mem.alloca(8, 8).unwrap();
        assert_eq!(p % 8, 0);
        mem.store(Type::F64, p, 1.5f64.to_bits()).unwrap();
        mem.stack_release(mark);
        assert!(mem.load(Type::F64, p).is_err());
        assert_eq!(mem.alloca(8192, 8), Err(TrapKind::StackOverflow));
    }

    #[test]
    fn reserved_slots_take_stack_space_but_no_bytes() {
        let mut mem = Memory::new(&Module::default(), 4096, 0).unwrap();
        let mut twin = mem.clone();
        let mark = mem.stack_pointer();
        let r = mem.reserve(8, 8).unwrap();
        assert_eq!(twin.alloca(8, 8), Ok(r));
        assert!(mem.load(Type::I64, r).is_err());
        let p = mem.alloca(4, 4).unwrap();
        assert_eq!(twin.alloca(4, 4), Ok(p));
        mem.store(Type::I32, p, 7).unwrap();
        mem.stack_release(r);
        assert!(mem.load(Type::I32, p).is_err());
        assert_eq!(mem.stack_pointer(), r);
        mem.stack_release(mark);
        assert_eq!(mem.reserve(4096, 8), Err(TrapKind::StackOverflow));
    }

    #[test]
    fn cells_reserve_what_reserve_does() {
        let mut mem = Memory::new(&Module::default(), 200, 0).unwrap();
        let mut twin = mem.clone();
        let slots = [(1, 1), (8, 8), (4, 4), (2, 16), (8, 8), (3, 1), (8, 64)];
        let mut overflows = 0;
        for (size, align) in slots.into_iter().chain([(8, 8); 8]) {
            let ok = mem.reserve_cell(size, align).is_ok();
            assert_eq!(ok, twin.reserve(size, align).is_ok());
            assert_eq!(mem.stack_pointer(), twin.stack_pointer());
            overflows += usize::from(!ok);
        }
        assert!(overflows > 1);
    }
}

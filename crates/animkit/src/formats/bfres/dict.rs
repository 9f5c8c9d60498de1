//! Dictionaries (index groups, `ResDict`, spec §2.2 and §11): a Patricia trie over the entry
//! names, the same on Wii U and Switch but for the bit order ([`Rule`]).
//!
//! The raw Wii U nodes are kept as stored (`ref`, `left`, `right`, and the two self-relative
//! offsets), so a group writes back byte for byte; [`build_by`] recomputes the trie from the
//! names for the writer (`build::write_dict`) and for lint.

use serde::{Deserialize, Serialize};

use super::platform::Platform;
use crate::bytes::{Cursor, Writer};
use crate::error::{Context, Error, ErrorKind, Result};
use crate::record::Record;

crate::record! {
    /// One 16-byte Wii U node.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub struct Node {
        /// The bit this node tests (`0xFFFFFFFF` at the root).
        #[serde(rename = "ref")]
        pub reference: u32,
        /// The node taken when the bit is 0.
        pub left: u16,
        /// The node taken when the bit is 1.
        pub right: u16,
        /// Self-relative offset of the name (first character), 0 for null.
        pub name: i32,
        /// Self-relative offset of the entry's data, 0 for null.
        pub data: i32,
    }
}

/// An index group as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResDict {
    /// The stored size word (`8 + 16·(n+1)` in every retail file).
    pub size: u32,
    /// Node 0 (root) and one node per entry.
    pub nodes: Vec<Node>,
}

impl ResDict {
    /// Reads a group at the cursor's position.
    pub fn read(c: &mut Cursor) -> Result<ResDict> {
        let at = c.offset();
        let size = c.u32()?;
        let n = c.i32()?;
        if n < 0 {
            return Err(Error::invalid(at + 4, format!("negative entry count {n}")));
        }
        let count = c.count(u64::from(n as u32) + 1, 16, "index group node")?;
        let mut nodes = Vec::with_capacity(count);
        for i in 0..count {
            nodes.push(Node::read(c).within(|| format!("node {i}"))?);
        }
        Ok(ResDict { size, nodes })
    }

    /// The stored length in bytes.
    pub fn byte_len(&self) -> usize {
        8 + 16 * self.nodes.len()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.nodes.len().saturating_sub(1)
    }

    /// Whether the group has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the group as stored.
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.size);
        w.i32(self.len() as i32);
        self.nodes.iter().for_each(|n| n.write(w));
    }

    /// Absolute positions of entry `k`'s name and data (`None` when null), given the group's
    /// absolute position.
    pub fn entry_targets(&self, group_at: usize, k: usize) -> (Option<i64>, Option<i64>) {
        let node_at = (group_at + 8 + 16 * (k + 1)) as i64;
        let n = self.nodes.get(k + 1);
        let t = |field: i64, v: i32| (v != 0).then_some(field + i64::from(v));
        (n.and_then(|n| t(node_at + 8, n.name)), n.and_then(|n| t(node_at + 12, n.data)))
    }
}

/// The entries of the group at `at` (absolute): `(name, absolute data position)` in storage order.
pub fn entries_at(data: &[u8], at: usize) -> Result<Vec<(String, Option<usize>)>> {
    let mut c = Cursor::new(data, crate::bytes::Endian::Big);
    c.seek(at)?;
    let dict = ResDict::read(&mut c)?;
    let entry = |k: usize| {
        let (name, target) = dict.entry_targets(at, k);
        let name = name.map_or(Ok(String::new()), |n| super::platform::name_at(data, n))?;
        let outside = || Error::invalid(at + 8 + 16 * (k + 1) + 12, "entry data offset outside the file");
        let target = target.map(|t| usize::try_from(t).ok().filter(|&t| t < data.len()).ok_or_else(outside));
        Ok((name, target.transpose()?))
    };
    (0..dict.len()).map(entry).collect()
}

/// A Switch dictionary (`{u32 0; s32 count}`, then `count + 1` nodes `{u32 ref; u16 left;
/// u16 right; u64 name}`, node 0 the root with the empty name), read as a little-endian
/// [`ResDict`] whose nodes' last 8 bytes are the name offset: the nodes' `(ref, left, right)`
/// and the entries' names in storage order.
pub fn read_switch(data: &[u8], at: usize) -> Result<(Vec<TrieNode>, Vec<String>)> {
    let mut c = Platform::SWITCH_0_8.cursor(data, at)?;
    let nodes: Vec<TrieNode> = ResDict::read(&mut c)?.nodes.iter().map(|n| (n.reference, n.left, n.right)).collect();
    let names = (0..nodes.len()).map(|i| {
        c.seek(at + 16 * i + 16)?;
        Platform::SWITCH_0_8.name(data, &mut c).within(|| format!("dictionary node {i}"))
    });
    Ok((nodes, names.collect::<Result<Vec<_>>>()?.into_iter().skip(1).collect()))
}

/// The trie rule of a platform (spec §2.2 and §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// Wii U: bytes counted from the start of the name; `ref` decreases down the tree and
    /// insertion uses the highest differing bit.
    WiiU,
    /// Switch: the name read as a big-endian integer (bit 0 = lowest bit of the last byte);
    /// `ref` increases down the tree (the root's `0xFFFFFFFF` counts as -1) and insertion uses
    /// the lowest differing bit.
    Switch,
}

impl Rule {
    /// `bit(s, b)`, 0 past the end of the name.
    fn bit(self, s: &[u8], b: u32) -> bool {
        let i = (b >> 3) as usize;
        let byte = match self {
            Rule::WiiU => s.get(i),
            Rule::Switch => s.len().checked_sub(i + 1).and_then(|j| s.get(j)),
        };
        byte.is_some_and(|&x| (x >> (b & 7)) & 1 == 1)
    }

    /// Whether `child` lies below `parent` in the tree.
    fn below(self, child: u32, parent: u32) -> bool {
        match self {
            Rule::WiiU => child < parent,
            Rule::Switch => (child as i32) > (parent as i32),
        }
    }

    /// The differing bit insertion uses: highest (Wii U) or lowest (Switch); 0 when equal.
    fn differing_bit(self, a: &[u8], b: &[u8]) -> u32 {
        let bits = (a.len().max(b.len()) * 8) as u32;
        let differs = |i: &u32| self.bit(a, *i) != self.bit(b, *i);
        match self {
            Rule::WiiU => (0..bits).rev().find(differs),
            Rule::Switch => (0..bits).find(differs),
        }
        .unwrap_or(0)
    }
}

/// A trie node: `(ref, left, right)`.
pub type TrieNode = (u32, u16, u16);

fn missing_node(i: usize) -> Error {
    Error::new(ErrorKind::Invalid, None, format!("index group trie node {i} does not exist"))
}

/// Node `i` of a trie under construction (every child index stored so far names an earlier
/// node, so this does not fail for tries built by [`build`]).
fn node(nodes: &[TrieNode], i: usize) -> Result<TrieNode> {
    nodes.get(i).copied().ok_or_else(|| missing_node(i))
}

/// Walks from the root along the bits of `s` while the walk goes down the tree and
/// `go(bit index)` holds: the `(parent, child)` indices where the walk stops.
fn walk(rule: Rule, nodes: &[TrieNode], s: &[u8], go: impl Fn(u32) -> bool) -> Result<(usize, usize)> {
    let (mut p, mut c) = (0usize, usize::from(node(nodes, 0)?.1));
    loop {
        let (parent, child) = (node(nodes, p)?, node(nodes, c)?);
        if !(rule.below(child.0, parent.0) && go(child.0)) {
            return Ok((p, c));
        }
        p = c;
        c = usize::from(if rule.bit(s, child.0) { child.2 } else { child.1 });
    }
}

/// The `(ref, left, right)` of every node for `names` in storage order (node 0 is the root),
/// by the Wii U rule.
pub fn build(names: &[&[u8]]) -> Result<Vec<TrieNode>> {
    build_by(Rule::WiiU, names)
}

/// The `(ref, left, right)` of every node for `names` in storage order by `rule`.
pub fn build_by(rule: Rule, names: &[&[u8]]) -> Result<Vec<TrieNode>> {
    let mut nodes: Vec<TrieNode> = vec![(0xFFFF_FFFF, 0, 0)];
    let mut keys: Vec<&[u8]> = vec![b""];
    for (k, &s) in names.iter().enumerate() {
        let k = k + 1;
        // Find the leaf the lookup ends at.
        let (_, c) = walk(rule, &nodes, s, |_| true)?;
        let other = keys.get(c).copied().ok_or_else(|| missing_node(c))?;
        let b = rule.differing_bit(s, other);
        let (p, c) = walk(rule, &nodes, s, |r| rule.below(b, r))?;
        let (right, left) = if rule.bit(s, b) { (k as u16, c as u16) } else { (c as u16, k as u16) };
        nodes.push((b, left, right));
        keys.push(s);
        let parent = nodes.get_mut(p).ok_or_else(|| missing_node(p))?;
        if p == 0 {
            parent.1 = k as u16;
        } else if rule.bit(s, parent.0) {
            parent.2 = k as u16;
        } else {
            parent.1 = k as u16;
        }
    }
    Ok(nodes)
}

//! RenderWare clump skeletons from `MODL` assets: FrameList + HAnim PLG → model skeleton
//! (`evilengine.md` §6).
//!
//! RenderWare streams are little-endian on every platform. Chunks are `u32 type, u32 size,
//! u32 libraryID`. Only the Clump (0x10) → FrameList (0x0E) → Struct (0x01) + one Extension (0x03)
//! per frame is read; everything else is skipped by size.
//!
//! Bones are in **HAnim node order** (ANIM bone i = node index i, §6.2); each node finds its frame
//! through its nodeID. Parents come from the node flags (PUSH = 2, POP = 1). The rest pose is the
//! frame matrix: `right`, `up`, `at` are the columns of the rotation. Names: the frame name
//! (`0x0253F2FE`) when present (none in BFBB), else `bone_NN`; `Bone::id` is the nodeID.

use glam::{Mat3, Quat, Vec3};

use crate::bytes::{Cursor, Endian};
use crate::error::{Context, Error, Result};
use crate::model::{Bone, Skeleton, Transform};

pub(crate) const CLUMP: u32 = 0x10;
const FRAME_LIST: u32 = 0x0E;
pub(crate) const STRUCT: u32 = 0x01;
const EXTENSION: u32 = 0x03;
const HANIM_PLG: u32 = 0x11E;
const FRAME_NAME: u32 = 0x0253_F2FE;

/// One FrameList frame (56 bytes; its parent index and flags are not needed: the HAnim node
/// flags give the hierarchy).
pub(crate) struct Frame {
    pub right: Vec3,
    pub up: Vec3,
    pub at: Vec3,
    pub position: Vec3,
    pub name: Option<String>,
    pub hanim: Option<HAnim>,
}

/// A frame's HAnim PLG.
pub(crate) struct HAnim {
    pub node_id: i32,
    /// `(nodeID, flags)` of each node (nodeIndex unused), only on the hierarchy root.
    pub nodes: Vec<(i32, u32)>,
    /// The byte offset of `nodes` in the file (12 bytes a node).
    pub nodes_offset: usize,
}

struct Chunk<'a> {
    kind: u32,
    body: &'a [u8],
    base: usize,
}

fn chunks(data: &[u8], base: usize) -> Result<Vec<Chunk<'_>>> {
    let mut c = Cursor::with_base(data, base, Endian::Little);
    let mut out = Vec::new();
    while c.remaining() >= 12 {
        let kind = c.u32()?;
        let size = c.u32()? as usize;
        c.skip(4)?; // library ID
        let at = c.offset();
        let body = c.take(size).within(|| format!("RenderWare chunk 0x{kind:X}"))?;
        out.push(Chunk { kind, body, base: at });
    }
    Ok(out)
}

/// The first chunk of `kind` in `list`, else an error at `at` saying `what` is missing.
fn find<'a>(list: &'a [Chunk<'a>], kind: u32, at: usize, what: &str) -> Result<&'a Chunk<'a>> {
    list.iter().find(|c| c.kind == kind).ok_or_else(|| Error::invalid(at, what))
}

fn vec3(c: &mut Cursor) -> Result<Vec3> {
    Ok(Vec3::new(c.f32()?, c.f32()?, c.f32()?))
}

/// Reads an HAnim PLG: version, nodeID, node count, then (when nodes follow) flags, key frame
/// size and `(nodeID, nodeIndex, flags)` per node.
fn read_hanim(plg: &Chunk) -> Result<HAnim> {
    let mut c = Cursor::with_base(plg.body, plg.base, Endian::Little);
    c.skip(4)?;
    let node_id = c.i32()?;
    let count = c.u32()?;
    if count > 0 {
        c.skip(8)?;
    }
    let count = c.count(u64::from(count), 12, "HAnim node")?;
    let nodes_offset = c.offset();
    let mut nodes = Vec::with_capacity(count);
    for _ in 0..count {
        let id = c.i32()?;
        c.skip(4)?;
        nodes.push((id, c.u32()?));
    }
    Ok(HAnim { node_id, nodes, nodes_offset })
}

/// Reads the frames of a clump stream.
pub(crate) fn read_clump(data: &[u8]) -> Result<Vec<Frame>> {
    let top = chunks(data, 0)?;
    let clump = find(&top, CLUMP, 0, "no RenderWare clump (0x10)")?;
    let inner = chunks(clump.body, clump.base)?;
    let list = find(&inner, FRAME_LIST, clump.base, "clump without a FrameList")?;
    let parts = chunks(list.body, list.base)?;
    let st = find(&parts, STRUCT, list.base, "FrameList without a Struct")?;
    let mut c = Cursor::with_base(st.body, st.base, Endian::Little);
    let n = c.u32()?;
    let n = c.count(u64::from(n), 56, "frame")?;
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let (right, up, at, position) = (vec3(&mut c)?, vec3(&mut c)?, vec3(&mut c)?, vec3(&mut c)?);
        c.skip(8)?;
        frames.push(Frame { right, up, at, position, name: None, hanim: None });
    }
    for (frame, ext) in frames.iter_mut().zip(parts.iter().filter(|p| p.kind == EXTENSION)) {
        for plg in chunks(ext.body, ext.base)? {
            match plg.kind {
                HANIM_PLG => frame.hanim = Some(read_hanim(&plg)?),
                FRAME_NAME => frame.name = Some(crate::text::latin1_until_nul(plg.body)),
                _ => {}
            }
        }
    }
    Ok(frames)
}

/// Parents of HAnim nodes from their flags (PUSH = 2, POP = 1), §6.2.
pub(crate) fn node_parents(flags: &[u32]) -> Vec<Option<usize>> {
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut next: Option<usize> = None;
    let mut parents = Vec::with_capacity(flags.len());
    for (i, &f) in flags.iter().enumerate() {
        parents.push(next);
        if f & 2 != 0 {
            stack.push(next);
        }
        next = if f & 1 != 0 { stack.pop().flatten() } else { Some(i) };
    }
    parents
}

/// The rest transform of a frame: rotation from the columns right, up, at.
pub(crate) fn frame_transform(f: &Frame) -> Transform {
    let m = Mat3::from_cols(f.right, f.up, f.at);
    let scale = Vec3::new(f.right.length(), f.up.length(), f.at.length());
    let unscaled = Mat3::from_cols(
        f.right / scale.x.max(f32::MIN_POSITIVE),
        f.up / scale.y.max(f32::MIN_POSITIVE),
        f.at / scale.z.max(f32::MIN_POSITIVE),
    );
    let rotation = Quat::from_mat3(if m.determinant().is_finite() { &unscaled } else { &Mat3::IDENTITY }).normalize();
    let rotation = if rotation.is_finite() { rotation } else { Quat::IDENTITY };
    let near_one = (scale - Vec3::ONE).abs().max_element() < 1e-3;
    Transform { translation: f.position, rotation, scale: if near_one { Vec3::ONE } else { scale } }
}

/// The HAnim skeleton of a clump (node order), or `None` for an unskinned model.
pub(crate) fn skeleton(frames: &[Frame]) -> Result<Option<Skeleton>> {
    let Some(hierarchy) = frames.iter().filter_map(|f| f.hanim.as_ref()).find(|h| !h.nodes.is_empty()) else {
        return Ok(None);
    };
    let nodes = &hierarchy.nodes;
    let parents = node_parents(&nodes.iter().map(|n| n.1).collect::<Vec<_>>());
    let mut bones = Vec::with_capacity(nodes.len());
    for (i, &(node_id, _)) in nodes.iter().enumerate() {
        let frame =
            frames.iter().find(|f| f.hanim.as_ref().is_some_and(|h| h.node_id == node_id)).ok_or_else(|| {
                let at = hierarchy.nodes_offset + 12 * i;
                Error::invalid(at, format!("no frame carries HAnim node ID {node_id} (hierarchy node {i})"))
            })?;
        bones.push(Bone {
            name: frame.name.clone().unwrap_or_else(|| format!("bone_{i:02}")),
            id: Some(node_id),
            hash: None,
            parent: parents.get(i).copied().flatten(),
            rest: frame_transform(frame),
        });
    }
    Ok(Some(Skeleton { bones }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_pop_rebuilds_parents() {
        // Root(0) → a(1, PUSH) ; a's sibling b(2) under root; b → c(3, POP).
        // Independent walk: 0 has no parent; 1 child of 0 (PUSH saves 0); 1 is a leaf (POP) → next
        // parent is the saved 0; 2 child of 0; 3 child of 2, POP with an empty stack → none.
        let flags = [0, 2 | 1, 0, 1];
        assert_eq!(node_parents(&flags), vec![None, Some(0), Some(0), Some(2)]);
    }
}

//! The glTF 2.0 JSON structures animkit writes and reads, each declared once.
//!
//! Fields are declared in the order the exporter writes them (serde_json keeps it). A reader
//! takes only the fields it needs: members it does not know, other tools' `extras` and unknown
//! `extensions` are skipped. `extras` is free-form in glTF; only its `animkit` member, where
//! animkit keeps what glTF cannot say, is read, and an `extras` that is no object reads as none.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::model::BoneRef;

/// `componentType` of signed bytes.
pub const BYTE: u32 = 5120;
/// `componentType` of unsigned bytes.
pub const UNSIGNED_BYTE: u32 = 5121;
/// `componentType` of signed 16-bit integers.
pub const SHORT: u32 = 5122;
/// `componentType` of unsigned 16-bit integers.
pub const UNSIGNED_SHORT: u32 = 5123;
/// `componentType` of unsigned 32-bit integers.
pub const UNSIGNED_INT: u32 = 5125;
/// `componentType` of 32-bit floats.
pub const FLOAT: u32 = 5126;
/// The `bufferView.target` of vertex attributes: WebGL's `ARRAY_BUFFER`.
pub const ARRAY_BUFFER: u32 = 34962;

/// A JSON number holding an `f32`, written as the `f64` it converts to exactly (so the
/// validator's `min`/`max` comparison and a reader both see the `f32`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Num(pub f32);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(f64::from(self.0))
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        f64::deserialize(d).map(|x| Num(x as f32))
    }
}

/// `N` numbers as [`Num`]s.
pub fn nums<const N: usize>(values: [f32; N]) -> [Num; N] {
    values.map(Num)
}

/// `extras` holding `animkit`, as written.
#[derive(Serialize)]
struct Extras<'a, T> {
    animkit: &'a T,
}

/// Writes `extras.animkit` of an object as `"extras": {"animkit": …}`.
fn write_extras<S: Serializer, T: Serialize>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(animkit) => Extras { animkit }.serialize(s),
        None => s.serialize_none(),
    }
}

/// Reads an object's `extras.animkit` (an `extras` that is no object, or has no `animkit`,
/// reads as none).
fn read_extras<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    match Value::deserialize(d)? {
        Value::Object(mut extras) => match extras.remove("animkit") {
            Some(ours) => T::deserialize(ours).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        },
        _ => Ok(None),
    }
}

/// `asset`: the glTF version and the tool that wrote the file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Asset {
    /// `"2.0"` for every file this crate reads.
    #[serde(default)]
    pub version: String,
    /// The tool that wrote the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<String>,
}

/// A scene: its name and root nodes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scene {
    /// The scene's name (the package name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The root nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<usize>,
}

/// What animkit keeps in a node's `extras.animkit`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NodeExtras {
    /// The bone's id (IFP bone tag, SKB id…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i32>,
    /// The bone's name hash (CryEngine CRC-32…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<u32>,
    /// `up_axis_z` or `common_root` for the nodes animkit adds above the bones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// `KHR_node_visibility` of a node.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct NodeVisibility {
    /// Whether the node and its children show.
    pub visible: bool,
}

/// A node's extensions that animkit writes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NodeExtensions {
    /// `KHR_node_visibility`, on nodes whose visibility a channel animates.
    #[serde(rename = "KHR_node_visibility", default, skip_serializing_if = "Option::is_none")]
    pub node_visibility: Option<NodeVisibility>,
}

/// A node: a bone, one of animkit's helper nodes, or the skinned mesh.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Node {
    /// The node's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Local transform: translation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[Num; 3]>,
    /// Local transform: rotation quaternion (x, y, z, w).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[Num; 4]>,
    /// Local transform: scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<[Num; 3]>,
    /// Local transform as a column-major matrix (other tools' files; animkit writes TRS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<[Num; 16]>,
    /// `extras.animkit`.
    #[serde(
        default,
        rename = "extras",
        serialize_with = "write_extras",
        deserialize_with = "read_extras",
        skip_serializing_if = "Option::is_none"
    )]
    pub animkit: Option<NodeExtras>,
    /// Child node indices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<usize>,
    /// The mesh the node carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    /// The skin that deforms the node's mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skin: Option<usize>,
    /// Extensions animkit writes (others are skipped on reading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<NodeExtensions>,
}

/// A track kept in an animation's `extras.animkit.tracks`: the model's own JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExtraTrack {
    /// The track's index in its clip.
    #[serde(default)]
    pub index: Option<usize>,
    /// Why it is not a glTF channel.
    #[serde(default)]
    pub reason: String,
    /// The model's [`crate::model::Track`] as JSON.
    #[serde(default)]
    pub track: Value,
}

/// What animkit keeps in an animation's `extras.animkit` (and per clip without any node channel
/// in the root's `extras.animkit.empty_clips`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ClipExtras {
    /// The clip's index in the package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip_index: Option<usize>,
    /// The clip's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The clip's duration in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Num>,
    /// Whether the clip loops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looping: Option<bool>,
    /// Whether the clip is additive (written only when it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additive: Option<bool>,
    /// The clip's frame rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_rate: Option<Num>,
    /// Tracks that are no glTF channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tracks: Vec<ExtraTrack>,
}

/// What animkit keeps in a channel's `extras.animkit`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChannelExtras {
    /// The track's bone reference, when it differs from the one its node gives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<BoneRef>,
    /// The model interpolation, when glTF's does not name it (`nlerp`, `linear` rotations…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation: Option<String>,
}

/// `KHR_animation_pointer` of a channel target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnimationPointer {
    /// A JSON pointer to the animated property.
    pub pointer: String,
}

/// A channel target's extensions that animkit writes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TargetExtensions {
    /// `KHR_animation_pointer` (path `pointer`).
    #[serde(rename = "KHR_animation_pointer", default, skip_serializing_if = "Option::is_none")]
    pub animation_pointer: Option<AnimationPointer>,
}

/// What a channel animates.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChannelTarget {
    /// The node (absent for `KHR_animation_pointer` channels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// `rotation`, `translation`, `scale`, `weights` or `pointer`.
    #[serde(default)]
    pub path: String,
    /// Extensions animkit writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<TargetExtensions>,
}

/// An animation channel: a sampler driving a target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Channel {
    /// The sampler's index in the animation.
    pub sampler: usize,
    /// What it animates.
    pub target: ChannelTarget,
    /// `extras.animkit`.
    #[serde(
        default,
        rename = "extras",
        serialize_with = "write_extras",
        deserialize_with = "read_extras",
        skip_serializing_if = "Option::is_none"
    )]
    pub animkit: Option<ChannelExtras>,
}

/// An animation sampler: key times, values and how to interpolate between them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sampler {
    /// The accessor of key times.
    pub input: usize,
    /// The accessor of key values.
    pub output: usize,
    /// `LINEAR` (the default), `STEP` or `CUBICSPLINE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation: Option<String>,
}

/// An animation (one clip).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Animation {
    /// The clip's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The channels.
    #[serde(default)]
    pub channels: Vec<Channel>,
    /// The samplers.
    #[serde(default)]
    pub samplers: Vec<Sampler>,
    /// `extras.animkit`.
    #[serde(
        default,
        rename = "extras",
        serialize_with = "write_extras",
        deserialize_with = "read_extras",
        skip_serializing_if = "Option::is_none"
    )]
    pub animkit: Option<ClipExtras>,
}

/// A skin: its joints and their inverse bind matrices.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    /// The skin's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The joint nodes.
    #[serde(default)]
    pub joints: Vec<usize>,
    /// The accessor of inverse bind matrices (`MAT4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inverse_bind_matrices: Option<usize>,
    /// The skeleton's root node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<usize>,
}

/// The vertex attributes of the joint-marker mesh.
#[derive(Debug, Clone, Serialize)]
pub struct Attributes {
    /// Accessor of positions (`VEC3` floats).
    #[serde(rename = "POSITION")]
    pub position: usize,
    /// Accessor of joint indices (`VEC4`).
    #[serde(rename = "JOINTS_0")]
    pub joints: usize,
    /// Accessor of joint weights (`VEC4` floats).
    #[serde(rename = "WEIGHTS_0")]
    pub weights: usize,
}

/// A mesh primitive (triangles).
#[derive(Debug, Clone, Serialize)]
pub struct Primitive {
    /// Its vertex attributes.
    pub attributes: Attributes,
}

/// A mesh (written only: the skin's carrier; meshes are not read).
#[derive(Debug, Clone, Serialize)]
pub struct Mesh {
    /// The mesh's name.
    pub name: &'static str,
    /// Its primitives.
    pub primitives: Vec<Primitive>,
}

/// An accessor: typed elements in a buffer view.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    /// The buffer view (absent: all zeros).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_view: Option<usize>,
    /// Where the first element starts in the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<usize>,
    /// One of the `componentType` constants above.
    pub component_type: u32,
    /// Integers stand for values in [0, 1] or [-1, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<bool>,
    /// The number of elements.
    pub count: usize,
    /// `SCALAR`, `VEC2`, `VEC3`, `VEC4`, `MAT2`, `MAT3` or `MAT4`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Per-component minimum (written; a reader has no use for it).
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<Num>>,
    /// Per-component maximum (written; a reader has no use for it).
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<Num>>,
    /// Sparse storage (not supported: read to refuse it).
    #[serde(default, skip_serializing)]
    pub sparse: Option<Value>,
}

/// A buffer view: a byte range of a buffer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    /// The buffer.
    pub buffer: usize,
    /// Where the range starts.
    #[serde(default)]
    pub byte_offset: usize,
    /// The range's length.
    #[serde(default)]
    pub byte_length: usize,
    /// Bytes from one element to the next (absent: packed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_stride: Option<usize>,
    /// [`ARRAY_BUFFER`] for vertex attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
}

/// A buffer: the GLB's BIN chunk (no `uri`) or a `data:` / external URI.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    /// The buffer's length.
    #[serde(default)]
    pub byte_length: usize,
    /// Where the bytes are (absent: the GLB's BIN chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

/// What animkit keeps in the root's `extras.animkit`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RootExtras {
    /// The version of these extras (1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The package name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `y` or `z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_axis: Option<String>,
    /// Whether the package had a skeleton (false: the nodes were made from the track targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<bool>,
    /// Clips without any node channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty_clips: Vec<ClipExtras>,
}

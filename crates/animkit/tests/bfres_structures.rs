//! BFRES structures checked through the public API on values built here: the AnimCurve reader
//! and evaluator on curves from the spec's values (§3.4, §5: step int curves, exact `s32` keys,
//! bool bit packing, wrap modes), the whole-file writer's index groups and dictionaries, and the
//! Euler rotation order of FSKA and FSKL (X applied first).

use animkit::formats::bfres::build::{write_dict, write_file, Out, Subfile};
use animkit::formats::bfres::curve::{Curve, CurveType, Value};
use animkit::formats::bfres::fres::GROUPS;
use animkit::formats::bfres::fshu::Fshu;
use animkit::formats::bfres::fska::euler_xyz;
use animkit::formats::bfres::platform::Platform;
use glam::Vec3;

fn int_curve(flags: u16, keys: &[u8], frames: &[u8], offset: i32) -> Curve {
    let mut d = Vec::new();
    d.extend_from_slice(&flags.to_be_bytes());
    d.extend_from_slice(&(frames.len() as u16).to_be_bytes());
    d.extend_from_slice(&0u32.to_be_bytes());
    d.extend_from_slice(&0f32.to_be_bytes());
    d.extend_from_slice(&f32::from(*frames.last().unwrap()).to_be_bytes());
    d.extend_from_slice(&0u32.to_be_bytes());
    d.extend_from_slice(&offset.to_be_bytes());
    d.extend_from_slice(&2f32.to_be_bytes());
    d.extend_from_slice(&(0x24i32 - 0x1C).to_be_bytes());
    d.extend_from_slice(&(0x24i32 + 4 - 0x20).to_be_bytes());
    d.extend_from_slice(frames);
    d.resize(0x28, 0);
    d.extend_from_slice(keys);
    d.resize(0x2C + 4, 0);
    Curve::read(&d, 0, Platform::WiiU { version: 0x0405_0003 }).unwrap()
}

#[test]
fn ftxp_step_int_curve_from_spec_3_4() {
    // §3.4: flags 0x004A, frames 00 01 02, keys FF 00 01, offset word 1 → values 0, 1, 2.
    let c = int_curve(0x004A, &[0xFF, 0x00, 0x01], &[0, 1, 2], 1);
    assert_eq!(c.curve_type(), CurveType::StepInt);
    let vals: Vec<Value> = [0.0, 0.5, 1.0, 1.99, 2.0, 5.0].iter().map(|&f| c.eval(f)).collect();
    use Value::Int;
    assert_eq!(vals, vec![Int(0), Int(0), Int(1), Int(1), Int(2), Int(2)]);
}

#[test]
fn s32_int_keys_are_exact_beyond_f32() {
    // Step int with s32 keys (key bits 0): offset 2^31 - 11, keys 1 - offset and 4 - offset,
    // so values 1 and 4; any pass through f32 (24-bit mantissa) rounds the key away.
    let offset = i32::MAX - 10;
    let keys: Vec<u8> = [1 - offset, 4 - offset].iter().flat_map(|k| k.to_be_bytes()).collect();
    let mut c = int_curve(0x0042, &keys[..4], &[0], offset);
    c.key_count = 2;
    c.frames = vec![0.0, 5.0];
    c.keys = vec![f64::from(1 - offset), f64::from(4 - offset)];
    assert_eq!((c.eval(0.0), c.eval(5.0)), (Value::Int(1), Value::Int(4)));
    assert_ne!((c.keys[0] as f32) as i32 + offset, 1, "the test needs keys f32 cannot hold");
}

#[test]
fn bool_curves_pack_lsb_first() {
    // Step bool (0x60), u8 frames (+2), 3 keys, one word 0b101: true, false, true.
    let c = int_curve(0x0062, &[0, 0, 0, 5], &[0, 10, 20], 0);
    assert_eq!(c.curve_type(), CurveType::StepBool);
    assert_eq!(c.eval(0.0), Value::Bool(true));
    assert_eq!(c.eval(15.0), Value::Bool(false));
    assert_eq!(c.eval(25.0), Value::Bool(true));
}

#[test]
fn wrap_modes() {
    let mut c = int_curve(0x004A, &[0, 1, 2], &[0, 5, 10], 0);
    c.flags |= 0x1000; // post repeat
    assert_eq!(c.wrap_frame(12.0), 2.0);
    c.flags = (c.flags & !0x3000) | 0x2000; // post mirror
    assert_eq!(c.wrap_frame(12.0), 8.0);
    c.flags |= 0x0100; // pre repeat
    assert_eq!(c.wrap_frame(-3.0), 7.0);
}

#[test]
fn fshu_in_a_group_past_the_header_is_an_error() {
    // Index group 12 does not exist (a FRES header has 12 groups, 0..=11): this used to
    // index the per-group arrays out of bounds.
    let fshu = Fshu {
        at: 0,
        name: "a".into(),
        flags: 0,
        frame_count: 1,
        param_anim_count: 0,
        curve_count: 0,
        baked_size: 0,
        materials: Vec::new(),
    };
    let err = write_file("f", 0x0405_0003, &[Subfile::Fshu(&fshu, GROUPS)]).unwrap_err();
    assert!(err.to_string().contains("index group 12"), "{err}");
    // A valid group still writes.
    assert!(write_file("f", 0x0405_0003, &[Subfile::Fshu(&fshu, 3)]).is_ok());
}

#[test]
fn index_group_names_and_targets_must_pair_up() {
    let mut o = Out::new(0, Platform::WiiU { version: 0x0405_0003 });
    assert!(write_dict(&mut o, &["a", "b"], &[0]).is_err());
    let mut o = Out::new(0, Platform::WiiU { version: 0x0405_0003 });
    assert!(write_dict(&mut o, &["a", "b"], &[0, 4]).is_ok());
}

#[test]
fn euler_order_applies_x_first() {
    // Rotating +Y by 90° about X gives +Z; then 90° about Z takes +Z to +Z (unchanged).
    // Z-then-X order would instead give +X. Independent: R = Rz(90)·Rx(90), R·(0,1,0) = (0,0,1).
    let q = euler_xyz(std::f32::consts::FRAC_PI_2, 0.0, std::f32::consts::FRAC_PI_2);
    let v = q * Vec3::Y;
    assert!((v - Vec3::Z).length() < 1e-6, "{v}");
    // Rz(90)·Rx(90)·(1,0,0): Rx leaves X, Rz takes X to Y.
    let v = q * Vec3::X;
    assert!((v - Vec3::Y).length() < 1e-6, "{v}");
}

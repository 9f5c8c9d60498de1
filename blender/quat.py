"""Quaternion arithmetic on numpy arrays, `x y z w` (animkit's order); Blender's is `w x y z`."""

import numpy as np


def mul(a, b):
    """The Hamilton product a·b, broadcasting over leading axes."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack(
        (
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ),
        axis=-1,
    )


def conj(q):
    q = np.asarray(q, dtype=np.float64)
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def rotate(q, v):
    """The vectors v rotated by the unit quaternion q."""
    v = np.asarray(v, dtype=np.float64)
    vq = np.concatenate((v, np.zeros(v.shape[:-1] + (1,))), axis=-1)
    return mul(mul(q, vq), conj(q))[..., :3]


def to_blender(q):
    """x y z w → w x y z."""
    return np.roll(np.asarray(q), 1, axis=-1)


def from_blender(q):
    """w x y z → x y z w."""
    return np.roll(np.asarray(q), -1, axis=-1)


def angle_between(a, b):
    """The rotation angle (radians) between unit quaternions, either sign."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    dot = np.clip(np.abs(np.sum(a * b, axis=-1)), 0.0, 1.0)
    return 2.0 * np.arccos(dot)

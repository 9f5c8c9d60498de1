//! Inputs at the edges: missing files and invalid times fail with exit 2 and say why.

mod common;

use common::{animkit, code, example, temp_dir};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_says_why_a_file_cannot_be_checked() {
    let dir = temp_dir("edges-check");
    let missing = dir.join("missing.ifp").display().to_string();
    let o = animkit(&["check", &missing]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot read") && stderr(&o).contains("missing.ifp"), "{}", stderr(&o));
    let unknown = dir.join("notes.txt");
    std::fs::write(&unknown, b"hello, not an animation").unwrap();
    let o = animkit(&["check", &unknown.display().to_string()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not a format animkit knows"), "{}", stderr(&o));
    // The readable file beside them is still checked and reported.
    let o = animkit(&["check", &missing, &example()]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stdout).contains("walk_cycle.ifp"));
}

#[test]
fn sample_refuses_times_that_are_not_numbers_of_seconds() {
    for bad in ["NaN", "inf", "-inf", "soon"] {
        let o = animkit(&["sample", &example(), "--clip", "0", &format!("--time={bad}")]);
        assert_eq!(code(&o), 2, "{bad}");
        assert!(stderr(&o).contains("not a number of seconds"), "{bad}: {}", stderr(&o));
    }
}

//! Number literals no 64-bit float holds as written are E0106, never infinity, a silently
//! different integer or a silent zero.

use super::*;

#[test]
fn overflowing_literals_are_e0106() {
    let dir = scratch("numbers");
    for (i, lit) in [
        "1e999",
        "99999999999999999999999",
        "9007199254740993",
        "-1e999",
        "1e-999",
        "0x1FFFFFFFFFFFFFFFF",
        "1e301h",
        &"9".repeat(400_000),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("n{i}.affect");
        write(
            &dir,
            &name,
            format!(
                "const BIG = {lit};\n\nagent A {{\n    var x = BIG;\n    main {{ succeed }}\n}}\n"
            ),
        );
        let (st, codes) = check(&dir, &name);
        assert_eq!(st, 1, "{lit:.40}");
        assert_eq!(codes, vec!["E0106".to_string()], "{lit:.40}");
    }
}

#[test]
fn the_largest_literals_that_fit_are_fine() {
    let dir = scratch("numbers_ok");
    write(
        &dir,
        "ok.affect",
        "const A = 9007199254740992;\nconst B = 1.7e308;\nconst C = 5e-324;\nconst D = 1e300h;\n\nagent X {\n    var x = A + B + C;\n    var d: duration = D;\n    main { succeed }\n}\n",
    );
    assert_eq!(check(&dir, "ok.affect"), (0, vec![]));
}

//! The README's AnyDice example runs as written and prints the table the README shows, which is
//! checked here against an enumeration of two d6.

use crate::omen;

/// The README's `sh` line that runs an AnyDice program, and the `text` block right after it.
fn readme_example() -> (String, String) {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme
        .find("```sh\nomen prob --dialect anydice")
        .expect("the README runs an AnyDice program");
    let rest = &readme[start + "```sh\n".len()..];
    let (command, rest) = rest.split_once("\n```\n").unwrap();
    let rest = rest.trim_start();
    let shown = rest
        .strip_prefix("```text\n")
        .expect("its output follows")
        .split("```")
        .next()
        .unwrap();
    (command.to_string(), shown.to_string())
}

#[test]
fn the_readme_anydice_example_prints_what_the_readme_shows() {
    let (command, shown) = readme_example();
    // The program is one '…' argument; the words before it have no quotes.
    let (words, program) = command.split_once(" '").unwrap();
    let program = program.strip_suffix('\'').unwrap();
    let mut args: Vec<&str> = words.split_whitespace().skip(1).collect();
    args.push(program);
    let run = omen(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, shown);

    // By enumeration of the 36 rolls of two d6: how often the higher and the lower die show k.
    let mut expected = String::from("outcome,best of two,worst of two\n");
    for k in 1..=6 {
        let count = |f: fn(i32, i32) -> i32| {
            (1..=6)
                .flat_map(|a| (1..=6).map(move |b| (a, b)))
                .filter(|&(a, b)| f(a, b) == k)
                .count() as i32
        };
        let fraction = |n: i32| {
            let g = gcd(n, 36);
            format!("{}/{}", n / g, 36 / g)
        };
        expected.push_str(&format!(
            "{k},{},{}\n",
            fraction(count(|a, b| a.max(b))),
            fraction(count(|a, b| a.min(b)))
        ));
    }
    assert_eq!(shown, expected);
}

fn gcd(a: i32, b: i32) -> i32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

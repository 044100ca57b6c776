//! The configuration file against the real command line of `strata`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::io::Write as _;

use clap::CommandFactory;

use super::effective::Source;
use super::file::{self, Problem, Value};
use super::reload::Reloader;
use super::{load, merge, with_config_flag};

fn root() -> clap::Command {
    with_config_flag(crate::Cli::command())
}

fn write(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

fn argv(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

fn problems(text: &str) -> Vec<Problem> {
    merge::check(&root(), &file::parse(text).unwrap())
}

#[test]
fn settings_keep_their_sections_and_lines() {
    let f = file::parse(
        "# a comment\nlog-level = \"info\"\n\n[standalone]\nlisten = \"127.0.0.1:26000\"\nvolume = [\"SSD=/ssd\"]\n[gateway]\nno-thrift = true\n",
    )
    .unwrap();
    let got: Vec<(Option<&str>, &str, usize)> = f
        .entries
        .iter()
        .map(|e| (e.section.as_deref(), e.key.as_str(), e.line))
        .collect();
    assert_eq!(
        got,
        vec![
            (None, "log-level", 2),
            (Some("standalone"), "listen", 5),
            (Some("standalone"), "volume", 6),
            (Some("gateway"), "no-thrift", 8),
        ]
    );
    assert_eq!(
        f.sections,
        vec![("standalone".to_owned(), 4), ("gateway".to_owned(), 7)]
    );
    assert_eq!(
        f.entries[2].value,
        Value::List(vec![Value::String("SSD=/ssd".into())])
    );
}

#[test]
fn toml_that_does_not_parse_is_reported_at_its_line() {
    let e =
        file::parse("[standalone]\nlisten = \"127.0.0.1:1\"\nmemtable-mib = = 3\n").unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].line, Some(3), "{e:?}");
    let e = file::parse("[standalone]\nlisten = 1\nlisten = 2\n").unwrap_err();
    assert_eq!(e[0].line, Some(3), "a duplicate key: {e:?}");
    let e = file::parse("[standalone.deeper]\nx = 1\n").unwrap_err();
    assert_eq!(e[0].line, Some(1), "{e:?}");
}

#[test]
fn unknown_keys_and_sections_are_refused_with_their_line_and_the_nearest_name() {
    let p = problems(
        "[standalone]\nlisten = \"127.0.0.1:26000\"\nmemtable_mib = 64\n[standlone]\nx = 1\n",
    );
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].line, Some(3));
    assert!(
        p[0].message.contains("did you mean 'memtable-mib'?"),
        "{p:?}"
    );
    assert_eq!(p[1].line, Some(4));
    assert!(p[1].message.contains("did you mean 'standalone'?"), "{p:?}");

    let p = problems("lisen = \"127.0.0.1:1\"\n");
    assert_eq!(p[0].line, Some(1));
    assert!(p[0].message.contains("did you mean 'listen'?"), "{p:?}");
    // A flag of another process only, in the wrong section.
    let p = problems("[gateway]\nmemtable-mib = 64\n");
    assert_eq!(p[0].line, Some(2));
    assert!(
        p[0].message
            .contains("`strata gateway` has no --memtable-mib"),
        "{p:?}"
    );
    // `--config` names the file; it is not a key.
    assert_eq!(problems("[master]\nconfig = \"x.toml\"\n").len(), 1);
}

#[test]
fn values_are_checked_by_their_flag_with_their_line() {
    let p = problems(
        "[standalone]\nlisten = \"not an address\"\nno-thrift = \"yes\"\nmemtable-mib = [1, 2]\ncompaction-nice = 40\nlog-level = \"info,=[\"\n",
    );
    let lines: Vec<Option<usize>> = p.iter().map(|p| p.line).collect();
    assert_eq!(
        lines,
        vec![Some(2), Some(3), Some(4), Some(5), Some(6)],
        "{p:?}"
    );
    assert!(p[0].message.contains("--listen"), "{p:?}");
    assert!(p[1].message.contains("switch"), "{p:?}");
    assert!(p[2].message.contains("not a list"), "{p:?}");
    assert!(p[3].message.contains("compaction-nice"), "{p:?}");
    // A good file has no problem; every process's keys are accepted.
    assert_eq!(
        problems(
            "log-level = \"info\"\nmemtable-mib = 64\n[standalone]\nvolume = [\"SSD=/a\", \"RAM_DISK=/b\"]\nno-thrift = true\n[regionserver]\netcd = [\"127.0.0.1:2379\"]\n[master]\nttl = 3\n[gateway]\nserver = \"127.0.0.1:16000\"\n"
        ),
        vec![]
    );
}

#[test]
fn every_long_flag_of_every_process_is_a_key() {
    for process in super::PROCESSES {
        let flags = merge::settable(&root(), process);
        assert!(flags.contains_key("log-level"), "{process}");
        assert!(
            !flags.contains_key("config") && !flags.contains_key("help"),
            "{process}"
        );
    }
    let standalone = merge::settable(&root(), "standalone");
    for key in [
        "listen",
        "data-dir",
        "volume",
        "no-thrift",
        "hbase-rpc-listen",
        "compaction-throughput-lower-mib",
    ] {
        assert!(standalone.contains_key(key), "{key}");
    }
}

#[test]
fn the_command_line_overrides_the_section_which_overrides_the_top_level() {
    let f = write(
        "memtable-mib = 64\nblock-cache-mib = 8\nttl = 9\n[standalone]\nmemtable-mib = 32\nlisten = \"127.0.0.1:26001\"\nvolume = [\"SSD=/ssd\"]\nno-thrift = true\n",
    );
    let path = f.path().to_str().unwrap();
    let (matches, loaded) = load(
        &root(),
        &argv(&[
            "strata",
            "standalone",
            "--config",
            path,
            "--block-cache-mib",
            "4",
        ]),
    )
    .unwrap();
    let cli = <crate::Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap();
    let crate::Command::Standalone(args) = cli.command else {
        panic!("not standalone");
    };
    assert_eq!(args.memtable_mib, 32, "the section over the top level");
    assert_eq!(args.block_cache_mib, 4, "the command line over the file");
    assert_eq!(args.listen.port(), 26001);
    assert!(args.no_thrift);
    assert_eq!(args.volumes.len(), 1);
    let effective = loaded.unwrap().effective;
    let s = &effective.settings;
    assert_eq!(s["memtable-mib"].source, Source::File);
    assert_eq!(s["block-cache-mib"].source, Source::CommandLine);
    assert_eq!(s["poll-us"].source, Source::Default);
    let lines = effective.lines();
    for want in [
        "listen = \"127.0.0.1:26001\"  # configuration file",
        "memtable-mib = 32  # configuration file",
        "block-cache-mib = 4  # command line",
        "no-thrift = true  # configuration file",
        "no-hbase-rpc = false",
        "volume = [\"SSD=/ssd\"]  # configuration file",
        "# thrift-listen: not set",
    ] {
        assert!(
            lines.iter().any(|l| l == want),
            "{want} missing from {lines:#?}"
        );
    }
    // `ttl` is the master's and the region server's; standalone leaves it.
    assert!(!s.contains_key("ttl"));
}

#[test]
fn a_file_with_problems_stops_the_process_before_it_starts() {
    let f = write("[standalone]\nlisten = \"nowhere\"\n");
    let path = f.path().to_str().unwrap();
    let e = load(&root(), &argv(&["strata", "standalone", "--config", path])).unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(e[0].starts_with(&format!("{path}:2: ")), "{e:?}");
}

#[test]
fn a_reload_applies_reloadable_keys_and_names_the_others() {
    let f = write("log-level = \"info\"\n[standalone]\nlisten = \"127.0.0.1:26002\"\n");
    let path = f.path().to_str().unwrap().to_owned();
    let words = argv(&[
        "strata",
        "standalone",
        "--config",
        &path,
        "--memtable-mib",
        "16",
    ]);
    let (_, loaded) = load(&root(), &words).unwrap();
    let mut reloader = Reloader::new(root(), words, loaded.unwrap());
    std::fs::write(
        &path,
        "log-level = \"debug\"\ncompaction-throughput-lower-mib = 5\nmemtable-mib = 99\n[standalone]\nlisten = \"127.0.0.1:26003\"\n",
    )
    .unwrap();
    let mut seen = Vec::new();
    let outcome = reloader
        .reload(|config, changed| {
            seen = changed.iter().map(|k| (*k).to_owned()).collect();
            assert_eq!(config.value("log-level"), Some("debug"));
            Ok(())
        })
        .unwrap();
    assert_eq!(seen, vec!["compaction-throughput-lower-mib", "log-level"]);
    assert_eq!(
        outcome.applied,
        vec![
            "compaction-throughput-lower-mib: 50 → 5",
            "log-level: info → debug"
        ]
    );
    // The command line's memtable-mib still wins; listen waits for a restart.
    assert_eq!(
        outcome.needs_restart,
        vec!["listen: 127.0.0.1:26002 → 127.0.0.1:26003"]
    );
    let lines = reloader.lines();
    assert!(
        lines.contains(&"log-level = \"debug\"  # configuration file, reloaded".to_owned()),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"listen = \"127.0.0.1:26002\"  # configuration file".to_owned()),
        "{lines:#?}"
    );

    // A broken file changes nothing.
    std::fs::write(&path, "log-level = \"warn\"\nlisten = \n").unwrap();
    let e = reloader.reload(|_, _| Ok(())).unwrap_err();
    assert!(e[0].starts_with(&format!("{path}:2: ")), "{e:?}");
    assert_eq!(reloader.in_force().value("log-level"), Some("debug"));
}

#[test]
fn a_misspelt_name_gets_the_nearest_known_one() {
    let known = ["listen", "memtable-mib", "block-cache-mib"];
    assert_eq!(
        merge::did_you_mean("memtable_mib", known.iter().copied()),
        ", did you mean 'memtable-mib'?"
    );
    assert_eq!(merge::did_you_mean("colour", known.iter().copied()), "");
}

#[test]
fn the_shipped_example_is_a_good_file() {
    let text = include_str!("../../../../conf/strata.toml");
    assert_eq!(
        merge::check(&root(), &file::parse(text).unwrap()),
        vec![],
        "conf/strata.toml"
    );
}

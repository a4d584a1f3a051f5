//! `banklint server` driven over JSON-RPC on its standard input and output, as an editor
//! drives it: the handshake, diagnostics on open, change (on the unsaved buffer) and save,
//! the padding fix and the allow comment as code actions, hover, the configuration reloaded,
//! headers and includers, and shutdown. Expected values come from the fixtures' documented
//! expectations (their `// expect:` comments and top comments).

#[path = "support/lsp_client.rs"]
mod client;

use client::{Client, apply, position, uri};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("banklint-server-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn start(cache: &Path) -> Client {
    start_with(cache, json!({}), "utf-16")
}

fn start_with(cache: &Path, capabilities: Value, encoding: &str) -> Client {
    let mut client = Client::start(cache);
    let init = client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": capabilities}),
    );
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], encoding);
    assert_eq!(caps["textDocumentSync"]["openClose"], true);
    assert_eq!(caps["textDocumentSync"]["change"], 1, "full text on change");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert_eq!(init["serverInfo"]["name"], "banklint");
    client.notify("initialized", json!({}));
    client
}

fn open(client: &mut Client, path: &Path, text: &str) -> String {
    let uri = uri(path);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}),
    );
    uri
}

fn change(client: &mut Client, uri: &str, version: i32, text: &str) {
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
    );
}

fn codes_and_lines(published: &Value) -> Vec<(String, u64, u64)> {
    published["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().expect("code").to_string(),
                d["range"]["start"]["line"].as_u64().expect("line") + 1,
                d["severity"].as_u64().expect("severity"),
            )
        })
        .collect()
}

const ERROR: u64 = 1;
const WARNING: u64 = 2;
const INFORMATION: u64 = 3;

#[test]
fn diagnostics_fixes_hover_and_changes_over_json_rpc() {
    let cache = temp_dir("cache");
    let mut client = start(&cache);
    // Fixture 13: the read `tile[threadIdx.x][threadIdx.y + j]` (line 22) is 32-way, 32
    // wavefronts (ideal 1), 32 instructions and 1024 wavefronts per block; the store on line
    // 17 is conflict-free, 32 and 32; `tile` is declared on line 13.
    let path = fixture("13_transpose_naive_tile.cu");
    let text = read(&path);
    let uri = open(&mut client, &path, &text);
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 1);
    let diagnostics = published["diagnostics"].as_array().expect("array");
    assert_eq!(diagnostics.len(), 1, "{published:#}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "bank-conflict");
    assert_eq!(d["severity"], WARNING);
    assert_eq!(d["source"], "banklint");
    let access = "tile[threadIdx.x][threadIdx.y + j]";
    let start = position(&text, 22, access);
    assert_eq!(d["range"]["start"], start);
    assert_eq!(
        d["range"]["end"]["character"],
        start["character"].as_u64().unwrap() + access.len() as u64
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("32-way bank conflict on `tile` (32 wavefronts per warp instead of 1)"),
        "{d}"
    );
    let declared = &d["relatedInformation"][0];
    assert_eq!(declared["location"]["uri"], uri.as_str());
    assert_eq!(
        declared["location"]["range"]["start"],
        position(&text, 13, "__shared__")
    );
    assert_eq!(declared["message"], "`tile` declared here");
    // The documentation link opens what `banklint explain bank-conflict` prints.
    let href = d["codeDescription"]["href"].as_str().expect("href");
    let doc_path = href.strip_prefix("file://").expect("a file URI");
    assert!(Path::new(doc_path).starts_with(&cache), "{href}");
    let explain = std::process::Command::new(env!("CARGO_BIN_EXE_banklint"))
        .args(["explain", "bank-conflict"])
        .output()
        .expect("explain runs");
    assert_eq!(
        read(Path::new(doc_path)).as_bytes(),
        explain.stdout.as_slice()
    );

    // Code actions on the diagnostic: the padding fix, preferred (the README shows this
    // fixture's fix `[applied by banklint check --fix]`), and the allow comment.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let actions = actions.as_array().expect("actions");
    let pad = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Pad `tile`"))
        .expect("a padding action");
    assert_eq!(pad["kind"], "quickfix");
    assert_eq!(pad["isPreferred"], true);
    assert_eq!(pad["diagnostics"][0]["code"], "bank-conflict");
    let edits = pad["edit"]["changes"][uri.as_str()]
        .as_array()
        .expect("edits");
    assert_eq!(edits.len(), 1);
    // The second TILE_DIM of line 13 becomes `TILE_DIM + 1` (fixture 14, conflict-free).
    let line13 = text.lines().nth(12).unwrap();
    let second = line13.rfind("TILE_DIM").unwrap() as u64;
    assert_eq!(
        edits[0]["range"]["start"],
        json!({"line": 12, "character": second})
    );
    assert_eq!(
        edits[0]["range"]["end"],
        json!({"line": 12, "character": second + 8})
    );
    assert_eq!(edits[0]["newText"], "TILE_DIM + 1");
    let allow = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Allow `bank-conflict`")
        })
        .expect("an allow action");
    assert_ne!(allow["isPreferred"], true);
    let allow_edit = &allow["edit"]["changes"][uri.as_str()][0];
    let allowed = apply(&text, allow_edit);
    assert!(
        allowed.lines().nth(21).unwrap().ends_with(
            "// expect: load 32-way wavefronts=32 ideal=1 instructions=32 total=1024  // banklint: allow(bank-conflict)"
        ),
        "{allowed}"
    );

    // Hover on the read and on the store.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 21, "character": start["character"].as_u64().unwrap() + 5}}),
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(value.contains("32-way bank conflict"), "{value}");
    assert!(value.contains("32 wavefronts per warp, ideal 1"), "{value}");
    assert!(
        value.contains("per block: 32 instructions, 1024 wavefronts (ideal 32)"),
        "{value}"
    );
    // The lane-to-bank picture: the 32 lanes of the worst instruction all in bank 0.
    assert!(
        value.contains(&format!("lanes  0-15:{}", "  0".repeat(16))),
        "{value}"
    );
    assert!(
        value.contains(&format!("lanes 16-31:{}", "  0".repeat(16))),
        "{value}"
    );
    assert!(value.contains("help: pad the innermost dimension by 1 element"));
    assert_eq!(hover["range"], d["range"]);
    let store = position(&text, 17, "tile[threadIdx.y + j]");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": store}),
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert!(value.contains("store of 4 bytes, conflict-free"), "{value}");
    assert!(
        value.contains("per block: 32 instructions, 32 wavefronts (ideal 32)"),
        "{value}"
    );
    let nothing = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(nothing, Value::Null, "no access at line 1");

    // The fix applied in the buffer only (the file on disk keeps its conflict): gone.
    let fixed = apply(&text, &edits[0]);
    change(&mut client, &uri, 2, &fixed);
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]), "{published:#}");
    assert_eq!(read(&path), text, "the server never writes the file");
    // Typing: several changes in quick succession are analyzed once, the last text.
    for version in 3..=6 {
        let t = if version % 2 == 0 { &text } else { &fixed };
        change(&mut client, &uri, version, t);
    }
    let published = client.diagnostics(&uri);
    assert_eq!(published["version"], 6, "only the last change is analyzed");
    assert_eq!(
        codes_and_lines(&published),
        vec![("bank-conflict".into(), 22, WARNING)]
    );

    // Save: analyzed again.
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    let published = client.diagnostics(&uri);
    assert_eq!(
        codes_and_lines(&published),
        vec![("bank-conflict".into(), 22, WARNING)]
    );

    // Close: its diagnostics are cleared.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(client.diagnostics(&uri)["diagnostics"], json!([]));
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn notes_headers_severities_and_configuration_reload() {
    let dir = temp_dir("config");
    let cache = dir.join("cache");
    // `headers/` is not a folder name the project search looks in for a bare name.
    std::fs::create_dir_all(dir.join("headers")).expect("mkdir");
    // Fixture 67 reads TILE and Sample from tile_config.cuh, found through an include
    // directory: then `t[tid][0]` (line 17) is 32-way and `samples[tid].weight` (line 18)
    // 2-way. Without it, the header is not found (a note) and both are unanalyzed (notes).
    let text = read(&fixture("67_local_include.cu"));
    let kernel = dir.join("k.cu");
    std::fs::write(&kernel, &text).expect("write");
    let header = dir.join("headers/tile_config.cuh");
    std::fs::write(&header, read(&fixture("include/tile_config.cuh"))).expect("write");
    let mut client = start(&cache);
    let uri = open(&mut client, &kernel, &text);
    assert_eq!(
        codes_and_lines(&client.diagnostics(&uri)),
        vec![
            ("include-not-found".into(), 9, INFORMATION),
            ("unanalyzed-access".into(), 17, INFORMATION),
            ("unanalyzed-access".into(), 18, INFORMATION),
        ]
    );
    // banklint.toml appears next to the file: the client reports it, the file is analyzed
    // again with the header, and with `[severity]`.
    let config = dir.join("banklint.toml");
    std::fs::write(
        &config,
        "include-dirs = [\"headers\"]\n[severity]\nbank-conflict = \"error\"\n",
    )
    .expect("write");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": client::uri(&config), "type": 1}]}),
    );
    assert_eq!(
        codes_and_lines(&client.diagnostics(&uri)),
        vec![
            ("bank-conflict".into(), 17, ERROR),
            ("bank-conflict".into(), 18, ERROR)
        ]
    );
    // The configuration is read on every analysis: an edit of the buffer sees a change of
    // the file even without a notification.
    std::fs::write(
        &config,
        "include-dirs = [\"headers\"]\n[severity]\nbank-conflict = \"off\"\n",
    )
    .expect("write");
    change(&mut client, &uri, 2, &format!("{text}\n"));
    assert_eq!(codes_and_lines(&client.diagnostics(&uri)), vec![]);
    std::fs::write(&config, "include-dirs = [\"headers\"]\n").expect("write");
    // A header saved: every open buffer is analyzed again with it. TILE = 33 makes the
    // column read conflict-free (a 33-word row stride, as fixture 02's [32][33]).
    let tile_config = read(&header).replace("#define TILE 32", "#define TILE 33");
    assert!(tile_config.contains("#define TILE 33"), "{tile_config}");
    std::fs::write(&header, tile_config).expect("write");
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": client::uri(&header)}}),
    );
    assert_eq!(
        codes_and_lines(&client.diagnostics(&uri)),
        vec![("bank-conflict".into(), 18, WARNING)]
    );
    // A broken configuration is shown, and the defaults are used meanwhile.
    std::fs::write(&config, "arch = 90\n").expect("write");
    change(&mut client, &uri, 3, &text);
    let message = client.wait_for("a message about banklint.toml", |m| {
        m["method"] == "window/showMessage"
    });
    assert_eq!(message["params"]["type"], 1);
    assert!(
        message["params"]["message"]
            .as_str()
            .unwrap()
            .contains("`arch` must be a string"),
        "{message}"
    );
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn an_included_file_is_analyzed_in_its_includer_context() {
    // Fixture 72: `tile[tid][0]` (line 21) is 16-way with what 72_includer_main.cu defines
    // before including it (real = double, TILE_W 32) and its launch's block (32, 2); read
    // alone, every access would be unknown.
    let dir = temp_dir("includer");
    for name in ["72_included_kernel.cu", "72_includer_main.cu"] {
        std::fs::write(dir.join(name), read(&fixture(name))).expect("write");
    }
    let mut client = start(&dir.join("cache"));
    let kernel = dir.join("72_included_kernel.cu");
    let uri = open(&mut client, &kernel, &read(&kernel));
    let published = client.diagnostics(&uri);
    assert_eq!(
        codes_and_lines(&published),
        vec![("bank-conflict".into(), 21, WARNING)]
    );
    assert!(
        published["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("16-way bank conflict on `tile` (32 wavefronts per warp instead of 2)")
    );
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn exit_without_shutdown_is_status_1_and_unknown_requests_are_errors() {
    let dir = temp_dir("exit");
    let mut client = start(&dir);
    client.notify("textDocument/didOpen", json!({"textDocument": {"uri": "untitled:Untitled-1", "languageId": "cuda", "version": 1, "text": "__global__ void k(int *o) {\n    __shared__ int m[32][32];\n    m[threadIdx.x][4] = 0;\n}\nvoid h(int *o) { k<<<1, 32>>>(o); }\n"}}));
    // A buffer without a file is analyzed too (fixture 01's 32-way column store).
    assert_eq!(
        codes_and_lines(&client.diagnostics("untitled:Untitled-1")),
        vec![("bank-conflict".into(), 3, WARNING)]
    );
    let unknown = client.request_raw("textDocument/definition", json!({"textDocument": {"uri": "untitled:Untitled-1"}, "position": {"line": 0, "character": 0}}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert_eq!(client.exit_only(), Some(1));
}

#[test]
fn a_fix_that_is_only_a_suggestion_is_offered_but_not_preferred() {
    // Fixture 68: `g[tid][0]` (line 23) is 32-way on `__shared__ float g[32][32]` (line 9),
    // and the file has a lambda banklint cannot parse (line 22); `--fix` applies a padding
    // only when the whole file was read, so this one is a suggestion.
    let dir = temp_dir("suggestion");
    let mut client = start(&dir);
    let path = fixture("68_file_scope_and_recovery.cu");
    let text = read(&path);
    let uri = open(&mut client, &path, &text);
    let published = client.diagnostics(&uri);
    assert_eq!(
        codes_and_lines(&published),
        vec![
            ("skipped-code".into(), 22, INFORMATION),
            ("bank-conflict".into(), 23, WARNING),
            ("bank-conflict".into(), 24, WARNING),
        ]
    );
    let conflict = &published["diagnostics"][1];
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": conflict["range"], "context": {"diagnostics": [conflict]}}),
    );
    let pad = actions
        .as_array()
        .expect("actions")
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Pad `g`"))
        .expect("the padding is offered");
    assert_eq!(
        pad["title"],
        "Pad `g` by 1 element: `__shared__ float g[32][32 + 1];` (not applied by --fix: parts of the file could not be parsed)"
    );
    assert!(pad.get("isPreferred").is_none(), "{pad}");
    let edit = &pad["edit"]["changes"][uri.as_str()][0];
    assert_eq!(
        apply(&text, edit).lines().nth(8).unwrap(),
        "__shared__ float g[32][32 + 1];"
    );
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn positions_are_utf16_units_or_bytes_as_negotiated() {
    // Fixture 01's 32-way column store, after a comment with non-ASCII text on its line:
    // `é` is 2 bytes and 1 UTF-16 unit, `𝄞` 4 bytes and 2 units.
    let text = "__global__ void k(int *o) {\n    __shared__ int m[32][32];\n    /* é𝄞 */ m[threadIdx.x][4] = 0;\n}\nvoid h(int *o) { k<<<1, 32>>>(o); }\n";
    let line = text.lines().nth(2).unwrap();
    let bytes = line.find("m[").unwrap() as u64;
    let units = line[..bytes as usize].encode_utf16().count() as u64;
    assert_eq!((bytes, units), (17, 14));
    let dir = temp_dir("encodings");
    let path = dir.join("k.cu");
    std::fs::write(&path, text).expect("write");
    for (capabilities, encoding, character) in [
        (json!({}), "utf-16", units),
        (
            json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
            "utf-8",
            bytes,
        ),
    ] {
        let mut client = start_with(&dir.join("cache"), capabilities, encoding);
        let uri = open(&mut client, &path, text);
        let published = client.diagnostics(&uri);
        assert_eq!(
            published["diagnostics"][0]["range"]["start"],
            json!({"line": 2, "character": character}),
            "{encoding}"
        );
        // Hover at that position finds the access.
        let hover = client.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": character}}),
        );
        assert!(
            hover["contents"]["value"]
                .as_str()
                .unwrap()
                .contains("`m`: store of 4 bytes, 32-way bank conflict"),
            "{hover}"
        );
        assert_eq!(client.shut_down(), Some(0));
    }
}

#[test]
fn hover_on_an_unanalyzed_access_gives_the_reason() {
    // Fixture 33: `s[perm[tid]]` (line 15) depends on data loaded from global memory.
    let dir = temp_dir("unknown");
    let mut client = start(&dir);
    let path = fixture("33_data_dependent_index.cu");
    let text = read(&path);
    let uri = open(&mut client, &path, &text);
    assert_eq!(
        codes_and_lines(&client.diagnostics(&uri)),
        vec![
            ("unanalyzed-access".into(), 15, INFORMATION),
            ("unanalyzed-access".into(), 17, INFORMATION)
        ]
    );
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": position(&text, 15, "s[perm")}),
    );
    let value = hover["contents"]["value"].as_str().expect("markdown");
    assert!(
        value.contains("`s`: load of 4 bytes, not analyzed"),
        "{value}"
    );
    assert!(value.contains("perm"), "{value}");
    assert_eq!(client.shut_down(), Some(0));
}

//! Tool names written into the JSON report.

use rstest::rstest;
use trailgate_core::ToolId;

use super::ToolName;

/// A tool's name is written as its `server.name` text, escaped as any JSON string, whether
/// it is put together on the stack or, longer, through its `Display`.
#[rstest]
#[case::bare(None, "read_file".to_owned())]
#[case::qualified(Some("fs".to_owned()), "read_file".to_owned())]
#[case::escaped(Some("a\"b".to_owned()), "c\\d\ne".to_owned())]
#[case::unicode(Some("сервер".to_owned()), "поиск".to_owned())]
#[case::just_fits(Some("s".to_owned()), "n".repeat(126))]
#[case::longer_than_the_stack(Some("s".to_owned()), "n".repeat(127))]
#[case::much_longer(Some("s".repeat(300)), "n".to_owned())]
fn a_tool_name_is_written_as_its_text(#[case] server: Option<String>, #[case] name: String) {
    let tool = ToolId::new(server, name);
    let written = serde_json::to_string(&ToolName(&tool)).expect("a name serializes");
    assert_eq!(
        written,
        serde_json::to_string(&tool.to_string()).expect("a string serializes")
    );
}

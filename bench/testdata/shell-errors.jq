# The peer of `cc-extract shell --errors`: join each Bash or PowerShell
# tool_use block to its tool_result by id, within one transcript, and print
# the id and command of every call that failed (an error result, a refusal
# or an interruption). Run as: jq -n -c -f shell-errors.jq FILE...
def text: if type == "string" then . elif type == "array" then [.[] | select(.type == "text") | .text] | join("\n") else "" end;
def failed($e; $r):
  ($r.is_error == true)
  or ($e.toolDenialKind // "" | . != "")
  or (($e.permissionDecision | objects | .decision) == "reject")
  or (($e.toolUseResult | objects | .interrupted) == true)
  or ($r.content | text | startswith("[Request interrupted by user"));
foreach (inputs | select(.type == "assistant" or .type == "user") | . + {file: input_filename}) as $e (
  {calls: {}, file: null, out: []};
  (if $e.file != .file then .calls = {} | .file = $e.file else . end)
  | .out = []
  | if ($e.message.content | type) != "array" then .
    elif $e.type == "assistant" then
      reduce ($e.message.content[] | select(.type == "tool_use" and (.name == "Bash" or .name == "PowerShell"))) as $b
        (.; .calls[$b.id] = {tool_use_id: $b.id, command: ($b.input.command // "")})
    else
      reduce ($e.message.content[] | select(.type == "tool_result")) as $r (.;
        if .calls[$r.tool_use_id] then
          (if failed($e; $r) then .out += [.calls[$r.tool_use_id]] else . end) | del(.calls[$r.tool_use_id])
        else . end)
    end;
  .out[])

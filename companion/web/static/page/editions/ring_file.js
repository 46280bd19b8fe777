// The described board as a file (issue 44): saved from one companion, read on another with the
// same box (GET and POST /api/board/file, as `companion board export/import` write and read it).

/* globals said, t */
import { authGet, write } from "../net.js";

// The file the server names, saved by the browser; "" or the words saying why not.
export async function saveBoardFile() {
  let reply;
  try { reply = await authGet("/api/board/file"); } catch (_) { return t("The companion is not reachable. Is the Wi-Fi on?"); }
  if (!reply.ok) {
    const data = await reply.json().catch(() => ({}));
    return data.error_said || data.error ? said(data.error_said || data.error) : t("Error {status}", { status: reply.status });
  }
  const named = /filename="?([^";]+)"?/i.exec(reply.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await reply.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: named ? named[1] : "question-block-board.json", hidden: true });
  document.getElementById("ring-edit").append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return "";
}

// A board file read in whole by the companion (checked as a board typed here is): the ring, or
// an error with the server's words (nothing changed).
export async function readBoardFile(file) {
  let data;
  try { data = JSON.parse(await file.text()); } catch (_) {
    throw Object.assign(new Error(t("That file is not a board file (not JSON).")), { status: 400 });
  }
  const refused = (err) => err.status >= 400 && err.status < 500 && err.status !== 401;
  return write("board-file", "/api/board/file", data, { quiet: refused });
}

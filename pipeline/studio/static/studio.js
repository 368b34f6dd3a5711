// rolecorpus studio: keyboard shortcuts of the review page (vendored; no other script is loaded).
// a = accept, n = nobody we track, s = skip, 1-9 = pick the n-th character of the list, c = focus the list.
document.addEventListener("keydown", function (ev) {
  var form = document.getElementById("decide");
  if (!form || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  var tag = (ev.target && ev.target.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA") return;
  var pick = form.querySelector("select[name=speaker]");
  function send(decision) {
    form.querySelector("input[name=decision]").value = decision;
    form.submit();
  }
  if (ev.key === "a" && form.dataset.proposal) { send("accept"); }
  else if (ev.key === "n") { send("nobody"); }
  else if (ev.key === "s") { send("skip"); }
  else if (ev.key === "c" && pick) { pick.focus(); }
  else if (/^[1-9]$/.test(ev.key) && pick) {
    var i = parseInt(ev.key, 10);
    if (i < pick.options.length) { pick.selectedIndex = i; send("character"); }
  }
  else if (ev.key === "Enter" && tag === "SELECT" && pick.selectedIndex > 0) { send("character"); }
  else if (ev.key === "p") { var au = document.querySelector("audio"); if (au) { au.currentTime = 0; au.play(); } }
  else { return; }
  ev.preventDefault();
});

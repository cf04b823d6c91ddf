// The dashboard's own script: no library, no build step.
// - A form marked data-confirm asks before it posts (a deletion).
// - A page whose <main> has data-stream follows that event stream: on each `changed` event (and when
//   the stream comes back after a break) it reads its own address (data-refresh) again and replaces
//   each live region (data-region) whose content changed; bursts of events make one read.
// - Every running duration (data-since) moves on each second while the clock flows (data-flowing on
//   the clock region); on a clock that only the operator moves, it moves when the clock does.
"use strict";
(() => {
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });

  const main = document.querySelector("main[data-stream]");
  let clockAt = { now: 0, flowing: false, seen: Date.now() };

  const readClock = () => {
    const clock = document.querySelector("[data-region=clock]");
    if (clock) clockAt = { now: Number(clock.dataset.now), flowing: clock.dataset.flowing === "1", seen: Date.now() };
  };
  const shown = (seconds) => {
    const whole = Math.max(0, Math.floor(seconds));
    const hours = Math.floor(whole / 3600), minutes = Math.floor((whole % 3600) / 60), rest = whole % 60;
    const two = (n) => String(n).padStart(2, "0");
    return hours ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
  };
  const tick = () => {
    const now = clockAt.now + (clockAt.flowing ? (Date.now() - clockAt.seen) / 1000 : 0);
    for (const element of document.querySelectorAll("[data-since]")) {
      const text = shown(now - Number(element.dataset.since));
      if (element.textContent !== text) element.textContent = text;
    }
  };

  let reading = null, again = false;
  const refresh = async () => {
    if (reading) { again = true; return; }
    reading = fetch(main.dataset.refresh, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then((answer) => (answer.ok ? answer.text() : Promise.reject(new Error(answer.status))))
      .then((html) => {
        const fresh = new DOMParser().parseFromString(html, "text/html");
        for (const region of document.querySelectorAll("[data-region]")) {
          const next = fresh.querySelector(`[data-region="${region.dataset.region}"]`);
          if (!next) continue;
          for (const name of ["data-now", "data-flowing"]) {
            if (next.hasAttribute(name)) region.setAttribute(name, next.getAttribute(name));
          }
          if (next.innerHTML !== region.innerHTML) region.innerHTML = next.innerHTML;
        }
        readClock();
        tick();
        document.documentElement.dataset.refreshed = String(Date.now());
      })
      .catch(() => {})
      .finally(() => {
        reading = null;
        if (again) { again = false; refresh(); }
      });
  };

  readClock();
  tick();
  window.setInterval(tick, 1000);
  if (main && window.EventSource) {
    const stream = new EventSource(main.dataset.stream);
    let broken = false;
    stream.addEventListener("changed", refresh);
    stream.addEventListener("open", () => {
      document.documentElement.dataset.live = "yes";
      if (broken) refresh();
      broken = false;
    });
    stream.addEventListener("error", () => { broken = true; document.documentElement.dataset.live = "no"; });
  }
})();

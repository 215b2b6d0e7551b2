extension OverviewPage {
    /// `/overview.css`: the control page's colours; tiles in as many columns as fit (one on a phone).
    static let style = #"""
        :root { color-scheme: dark; --bg: #111; --panel: #1c1c1e; --fg: #eee; --dim: #999; --accent: #ffcc00; --bad: #ff453a; --good: #1f7a33; --wait: #8a6d00; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        header { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .5rem 1rem; background: #000; }
        h1 { font-size: 1.1rem; margin: 0 .5rem 0 0; }
        h2 { font-size: 1rem; margin: .2rem 0 .6rem; }
        .badge { padding: .1rem .5rem; border-radius: .8rem; background: #333; font-size: .85rem; white-space: nowrap; }
        .badge.playing { background: var(--good); }
        .badge.starting, .badge.stopping, .badge.restarting { background: var(--wait); }
        .badge.failed { background: #8a1f1f; }
        .stats { color: var(--dim); font-size: .8rem; margin-left: auto; }
        main { padding: 1rem; display: grid; gap: 1rem; }
        #cameras { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(280px, 1fr)); }
        #empty { color: var(--dim); margin: 0; }
        .tile, #add { background: var(--panel); border-radius: .6rem; padding: .6rem; min-width: 0; }
        .shot { position: relative; display: block; aspect-ratio: 4 / 3; background: #000; border-radius: .4rem; overflow: hidden; }
        .shot img { display: block; width: 100%; height: 100%; object-fit: contain; }
        .shot img[hidden] { display: none; }
        .shot .none { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; color: var(--dim); }
        .shot .none[hidden] { display: none; }
        .head { display: flex; align-items: center; justify-content: space-between; gap: .5rem; margin: .5rem 0 .2rem; }
        .name { color: var(--fg); font-weight: 600; text-decoration: none; font-size: 1.05rem; overflow-wrap: anywhere; }
        .name:hover { color: var(--accent); }
        .figures { display: flex; gap: 1rem; color: var(--dim); font-size: .85rem; min-height: 1.2em; }
        .score { color: var(--accent); }
        .problem { color: var(--bad); font-size: .85rem; margin: .3rem 0; overflow-wrap: anywhere; }
        .source { margin: .4rem 0; font-size: .85rem; }
        .source summary { cursor: pointer; color: var(--dim); }
        .description { display: block; margin: .3rem 0; padding: .3rem; background: #000; border-radius: .3rem; overflow-wrap: anywhere; white-space: pre-wrap; }
        .switch { display: flex; gap: .4rem; }
        .switch input { flex: 1; min-width: 0; }
        .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .4rem; }
        .actions button { padding: .25rem .55rem; font-size: .9rem; }
        .actions .danger { margin-left: auto; }
        .note { min-height: 1em; margin: .3rem 0 0; font-size: .85rem; color: var(--dim); overflow-wrap: anywhere; }
        .note.error { color: var(--bad); }
        button, select, input, textarea { font: inherit; }
        input, textarea { background: #000; color: var(--fg); border: 1px solid #555; border-radius: .3rem; padding: .3rem .4rem; }
        textarea { font-family: ui-monospace, monospace; font-size: .85rem; width: 100%; resize: vertical; }
        button { background: #333; color: var(--fg); border: 1px solid #555; border-radius: .4rem; padding: .3rem .7rem; cursor: pointer; }
        button:disabled { opacity: .4; cursor: default; }
        button.danger { background: var(--bad); border: 0; }
        button[type=submit] { background: var(--accent); color: #000; border: 0; font-weight: 600; }
        #add-form { display: grid; grid-template-columns: 7rem minmax(0, 1fr); gap: .4rem .6rem; align-items: center; }
        #add-form .row { display: flex; justify-content: space-between; align-items: center; }
        #add-error { margin: .6rem 0 0; }
        #add-error p { margin: 0 0 .3rem; }
        #add-error pre { margin: 0; padding: .4rem; background: #000; border-radius: .3rem; white-space: pre-wrap; overflow-wrap: anywhere; color: var(--fg); }
        #add-error pre[hidden] { display: none; }
        mark { background: var(--bad); color: #fff; border-radius: .2rem; padding: 0 .1rem; }
        #message { min-height: 1.2em; color: var(--dim); margin: 0; }
        #message.error { color: var(--bad); }
        @media (max-width: 600px) {
          main { padding: .5rem; }
          #add-form { grid-template-columns: 1fr; }
        }
        """#
}

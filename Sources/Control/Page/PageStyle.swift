extension ControlPage {
    /// `/app.css`: one column on a phone, preview beside the controls on a wide screen.
    static let style = #"""
        :root { color-scheme: dark; --bg: #111; --panel: #1c1c1e; --fg: #eee; --dim: #999; --accent: #ffcc00; --bad: #ff453a; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        header { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .5rem 1rem; background: #000; }
        h1 { font-size: 1.1rem; margin: 0 .5rem 0 0; }
        #back { color: var(--accent); text-decoration: none; font-size: .9rem; }
        h2 { font-size: 1rem; margin: .2rem 0 .6rem; }
        .badge { padding: .1rem .5rem; border-radius: .8rem; background: #333; font-size: .85rem; }
        .badge.ready { background: #1f7a33; } .badge.capturing, .badge.saving { background: #8a6d00; } .badge.busy { background: #8a1f1f; }
        .stats { color: var(--dim); font-size: .8rem; margin-left: auto; }
        main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); }
        #photos, #player-box, #clips, #recordings { grid-column: 1 / -1; }
        section { background: var(--panel); border-radius: .6rem; padding: .8rem; }
        .frame { position: relative; background: #000; border-radius: .4rem; overflow: hidden; }
        #preview, #preview-video { display: block; width: 100%; height: auto; min-height: 120px; }
        #preview[hidden], #preview-video[hidden] { display: none; }
        .readout { display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; margin: .6rem 0; }
        .readout .advice { flex-basis: 100%; }
        .label { color: var(--dim); font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
        .shutter { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        button, select, input, a.button { font: inherit; }
        button { background: #333; color: var(--fg); border: 1px solid #555; border-radius: .4rem; padding: .4rem .8rem; cursor: pointer; }
        #shutter { background: var(--accent); color: #000; border: 0; font-weight: 600; padding: .5rem 1.4rem; }
        button.danger { background: var(--bad); border: 0; }
        #countdown { font-weight: 600; color: var(--accent); }
        #message { min-height: 1.2em; color: var(--dim); margin: .5rem 0 0; }
        #message.error { color: var(--bad); }
        fieldset { border: 1px solid #333; border-radius: .4rem; margin: 0 0 .8rem; padding: .4rem .6rem; }
        legend { color: var(--accent); padding: 0 .3rem; }
        .control { display: grid; grid-template-columns: 8.5rem minmax(0, 1fr) auto; gap: .4rem; align-items: center; margin: .3rem 0; }
        .control label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .control output { color: var(--dim); font-size: .85rem; min-width: 2.5rem; text-align: right; }
        .control select, .control input[type=text] { width: 100%; }
        .control .flags { display: flex; flex-wrap: wrap; gap: 0 .6rem; min-width: 0; }
        .control .flags label { white-space: nowrap; font-size: .85rem; }
        .fixed { color: var(--dim); font-size: .85rem; }
        .fixed summary { cursor: pointer; }
        #gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: .5rem; }
        .thumb { position: relative; padding: 0; border: 0; background: #000; border-radius: .3rem; overflow: hidden; aspect-ratio: 4 / 3; }
        .thumb img { width: 100%; height: 100%; object-fit: cover; display: block; }
        .thumb span { position: absolute; left: 0; right: 0; bottom: 0; background: rgba(0,0,0,.6); font-size: .75rem; padding: .1rem .3rem; text-align: left; }
        .thumb.flash { outline: 3px solid var(--accent); }
        .dim { color: var(--dim); font-size: .85rem; font-weight: normal; }
        .media-actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: .4rem 0; }
        .media-actions a { color: var(--accent); }
        #player { display: block; width: 100%; max-width: 960px; max-height: 70vh; margin: 0 auto; background: #000; border-radius: .4rem; }
        #clip-list { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: .8rem; }
        .clip { display: flex; flex-direction: column; gap: .3rem; min-width: 0; }
        .clip .thumb { aspect-ratio: 16 / 9; width: 100%; cursor: pointer; }
        .clip .nothumb { display: block; padding: .6rem; color: var(--dim); font-size: .8rem; }
        .clip .media-actions { margin: 0; font-size: .85rem; }
        .clip-facts, .clip .notes { font-size: .8rem; color: var(--dim); overflow-wrap: anywhere; }
        .clip-facts .trigger { color: var(--fg); }
        .clip-facts a { color: var(--accent); }
        .timeline { display: block; width: 100%; height: 18px; background: #000; border-radius: .2rem; }
        .timeline .hi { fill: #30d158; } .timeline .mid { fill: var(--accent); } .timeline .lo { fill: var(--bad); } .timeline .none { fill: #444; }
        .recording { overflow-x: auto; }
        .recording h3 { font-size: .95rem; margin: .6rem 0 .3rem; }
        .segments { width: 100%; border-collapse: collapse; font-size: .85rem; }
        .segments th { text-align: left; color: var(--dim); font-weight: normal; }
        .segments td, .segments th { padding: .2rem .6rem .2rem 0; border-bottom: 1px solid #333; }
        .segments .media-actions { margin: 0; }
        .segments button { padding: .15rem .6rem; }
        button:disabled { opacity: .4; cursor: not-allowed; }
        dialog { background: var(--panel); color: var(--fg); border: 0; border-radius: .6rem; max-width: min(960px, 96vw); width: 100%; }
        dialog::backdrop { background: rgba(0,0,0,.7); }
        .close { float: right; font-size: 1.3rem; line-height: 1; }
        .photo-frame { position: relative; display: table; margin: 2rem auto 0; }
        .photo-frame img { display: block; max-width: 100%; max-height: 65vh; width: auto; height: auto; }
        #photo-box { position: absolute; border: 3px solid var(--accent); box-shadow: 0 0 0 1px #000; pointer-events: none; }
        #photo-facts { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; }
        #photo-facts dt { color: var(--dim); }
        #photo-facts dd { margin: 0; }
        .photo-actions { display: flex; gap: .6rem; align-items: center; margin: .6rem 0; }
        .photo-actions a { color: var(--accent); }
        #photo-exif td { padding: 0 .6rem 0 0; font-size: .85rem; }
        @media (max-width: 760px) {
          main { grid-template-columns: 1fr; padding: .5rem; }
          .control { grid-template-columns: 7rem minmax(0, 1fr) auto; }
          #gallery { grid-template-columns: repeat(auto-fill, minmax(100px, 1fr)); }
          #clip-list { grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); }
        }
        """#
}

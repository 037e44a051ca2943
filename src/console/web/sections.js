// SPDX-License-Identifier: Apache-2.0
// The console's sections beside the explorer: storage governance and
// sharing, one tab per kind of securable under the metastore, each a
// keyset-paged list with what makes a new one.
import { html, useState } from './vendor/preact-htm.js';
import { href, kinds, sections } from './kinds.js';
import { ObjectTable } from './explorer.js';
import { CreateCredentialDialog, CreateLocationDialog, CreateTagPolicyDialog } from './governance.js';
import { CreateProviderDialog, CreateRecipientDialog } from './sharing.js';
import { CreateDialog } from './forms.js';
import { Tabs } from './ui.js';

// What makes a new object of each kind, and its full name once made.
const creators = {
  credential: CreateCredentialDialog,
  external_location: CreateLocationDialog,
  tag_policy: CreateTagPolicyDialog,
  recipient: CreateRecipientDialog,
  provider: CreateProviderDialog,
  share: (props) => html`<${CreateDialog} kind="share" ...${props} />`,
};

export function SectionPage({ section, kind }) {
  const s = sections[section];
  const current = s.kinds.includes(kind) ? kind : s.kinds[0];
  const [dialog, setDialog] = useState(false);
  const [round, setRound] = useState(0);
  const Create = creators[current];
  const k = kinds[current];
  const done = (made) => {
    setDialog(false);
    setRound(round + 1);
    const name = made && (made[k.nameField || 'name']);
    if (name) location.hash = href(current, name);
  };
  return html`<div class="page"><div class="title"><h1>${s.label}</h1>
      ${Create ? html`<button type="button" class="primary" onClick=${() => setDialog(true)}>
        New ${k.label.toLowerCase()}</button>` : null}</div>
    <${Tabs} tabs=${s.kinds.map((id) => [id, kinds[id].plural, `#/${section}/${id}`])} current=${current} />
    <${ObjectTable} kind=${current} parent=${null} key=${`${current}-${round}`} />
    ${dialog && Create ? html`<${Create} onClose=${() => setDialog(false)} onDone=${done} />` : null}</div>`;
}

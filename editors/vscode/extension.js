// extension.js — starts `sacc lsp` over stdio for .sa files through vscode-languageclient.
// The server does the work (diagnostics, hover, definition, completion, formatting through
// sacc fmt); this file only finds the program (the sacc.path setting) and hands it the
// arguments of sacc.args.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions() {
	const config = vscode.workspace.getConfiguration("sacc");
	const command = config.get("path") || "sacc";
	const args = ["lsp", ...(config.get("args") || [])];
	return { command, args, transport: TransportKind.stdio };
}

async function start() {
	client = new LanguageClient("sacc", "sacc", serverOptions(), {
		documentSelector: [{ scheme: "file", language: "sa" }, { scheme: "untitled", language: "sa" }],
	});
	try {
		await client.start();
	} catch (err) {
		vscode.window.showErrorMessage(
			`sacc: cannot start '${serverOptions().command} lsp' (${err.message}); ` +
			"set sacc.path to the sacc program");
	}
}

async function activate(context) {
	await start();
	// A new sacc.path or sacc.args takes effect at once: the server is restarted.
	context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (e) => {
		if (!e.affectsConfiguration("sacc.path") && !e.affectsConfiguration("sacc.args"))
			return;
		if (client)
			await client.stop();
		await start();
	}));
}

function deactivate() {
	return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

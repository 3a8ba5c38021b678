//! A table's section as written in TOML, and the conversions between it and [`TableConfig`]:
//! one `device` with its `link` beside it, or a list of `[[table.device]]` entries, each with its
//! role, protocol and link; written back in the shorter form where it fits.

use super::*;

/// A table as written in TOML (one `device` and `link`, or a list of devices).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTable {
    name: String,
    game: GameKind,
    rules: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decks: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<toml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    link: Option<LinkConfig>,
    #[serde(default)]
    simulated: bool,
    #[serde(default, skip_serializing_if = "is_default")]
    liveness: LivenessOverride,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pace_target: Option<u32>,
}

fn is_default(o: &LivenessOverride) -> bool {
    *o == LivenessOverride::default()
}

impl TryFrom<RawTable> for TableConfig {
    type Error = String;

    fn try_from(raw: RawTable) -> Result<TableConfig, String> {
        let devices = match raw.device {
            None => return Err(format!("table {:?}: no device (add device = {{ protocol = \"angel-eye\" }} or [[table.device]] entries)", raw.name)),
            Some(toml::Value::Array(entries)) => {
                if raw.link.is_some() {
                    return Err(format!(
                        "table {:?}: with a list of devices, each [[table.device]] has its own link",
                        raw.name
                    ));
                }
                if entries.is_empty() {
                    return Err(format!("table {:?}: the list of devices is empty", raw.name));
                }
                entries
                    .into_iter()
                    .enumerate()
                    .map(|(i, entry)| device_entry(entry).map_err(|e| format!("table {:?} device {}: {e}", raw.name, i + 1)))
                    .collect::<Result<Vec<_>, _>>()?
            }
            Some(single) => {
                let protocol: ProtocolConfig = single
                    .try_into()
                    .map_err(|e| format!("table {:?} device: {e}", raw.name))?;
                vec![TableDevice {
                    role: DeviceRole::of(&protocol),
                    protocol,
                    link: raw.link,
                    liveness: LivenessOverride::default(),
                }]
            }
        };
        let mut devices = devices;
        // A device connected now is decoded by the protocol's current revision; settings without
        // one read as revision 1 only so that streams recorded before it replay as they were.
        for device in &mut devices {
            if let ProtocolConfig::Pitwatch(config) = &mut device.protocol {
                config.revision = pitwatch_proto::REVISION;
            }
        }
        // A shuffler beside a card-reading shoe shuffles for the shoe: its completed shuffles
        // are deck checks held for the shoe loaded next, not shoes of their own.
        if devices.iter().any(|d| d.role == DeviceRole::Shoe) {
            for device in &mut devices {
                if let (DeviceRole::Shuffler, ProtocolConfig::Pitwatch(config)) =
                    (device.role, &mut device.protocol)
                {
                    config.beside_shoe = true;
                }
            }
        }
        Ok(TableConfig {
            name: raw.name,
            game: raw.game,
            rules: raw.rules,
            decks: raw.decks,
            variant: raw.variant,
            devices,
            simulated: raw.simulated,
            liveness: raw.liveness,
            pace_target: raw.pace_target,
        })
    }
}

/// One `[[table.device]]`: `role`, `link` and the protocol with its settings side by side.
fn device_entry(entry: toml::Value) -> Result<TableDevice, String> {
    let toml::Value::Table(mut table) = entry else {
        return Err("a device is a table of role, protocol and link".to_owned());
    };
    let role: DeviceRole = match table.remove("role") {
        Some(value) => value
            .try_into()
            .map_err(|_| "role must be \"shoe\", \"shuffler\" or \"console\"".to_owned())?,
        None => DeviceRole::Shoe,
    };
    let link: Option<LinkConfig> = match table.remove("link") {
        Some(value) => Some(value.try_into().map_err(|e| format!("link: {e}"))?),
        None => None,
    };
    let liveness: LivenessOverride = match table.remove("liveness") {
        Some(value) => value.try_into().map_err(|e| format!("liveness: {e}"))?,
        None => LivenessOverride::default(),
    };
    let mut protocol: ProtocolConfig = toml::Value::Table(table)
        .try_into()
        .map_err(|e| e.to_string())?;
    if let ProtocolConfig::Pitwatch(config) = &mut protocol {
        config.role = Some(match role {
            DeviceRole::Shoe => pitwatch_proto::Role::Shoe,
            DeviceRole::Shuffler => pitwatch_proto::Role::Shuffler,
            DeviceRole::Console => pitwatch_proto::Role::Console,
        });
    }
    Ok(TableDevice {
        role,
        protocol,
        link,
        liveness,
    })
}

impl From<TableConfig> for RawTable {
    fn from(table: TableConfig) -> RawTable {
        let value = |v: Result<toml::Value, toml::ser::Error>| v.ok();
        let (device, link) = match table.devices.as_slice() {
            [one] if one.role == DeviceRole::of(&one.protocol) && is_default(&one.liveness) => {
                (value(toml::Value::try_from(one.protocol)), one.link.clone())
            }
            many => (
                Some(toml::Value::Array(
                    many.iter()
                        .filter_map(|d| {
                            let mut entry = match toml::Value::try_from(d.protocol).ok()? {
                                toml::Value::Table(t) => t,
                                _ => return None,
                            };
                            entry.remove("role");
                            entry
                                .insert("role".into(), toml::Value::String(d.role.as_str().into()));
                            if let Some(link) = &d.link {
                                entry.insert("link".into(), toml::Value::try_from(link).ok()?);
                            }
                            if !is_default(&d.liveness) {
                                entry.insert(
                                    "liveness".into(),
                                    toml::Value::try_from(d.liveness).ok()?,
                                );
                            }
                            Some(toml::Value::Table(entry))
                        })
                        .collect(),
                )),
                None,
            ),
        };
        RawTable {
            name: table.name,
            game: table.game,
            rules: table.rules,
            decks: table.decks,
            variant: table.variant,
            device,
            link,
            simulated: table.simulated,
            liveness: table.liveness,
            pace_target: table.pace_target,
        }
    }
}

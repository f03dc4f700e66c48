"""The telecom user's tools: what the user can check and change on their own phone, with
tau2's semantics and result texts (the state they read is `_phone_state`'s; the functions
tasks set up and assert with are `_phone_setup`'s)."""

from __future__ import annotations

from typing import Any

from ....domains import tool
from ._phone_models import (
    APNSettings,
    NetworkModePreference,
    NetworkStatus,
    PerformanceLevel,
    SignalStrength,
    SimStatus,
    VpnDetails,
)
from ._phone_state import AppPermissionsNames, PhoneState

_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}


def _on(flag: bool) -> str:
    return "ON" if flag else "OFF"


class PhoneTools(PhoneState):
    """The user's phone: checks and settings the agent can ask the user to use."""

    # -- status ----------------------------------------------------------------------------

    @tool()
    def check_status_bar(self) -> str:
        """Show the icons in the phone's status bar: signal, network type, mobile data (on,
        off, data saver), Wi-Fi, VPN and battery."""
        return f"Status Bar: {self.status_bar()}"

    @tool()
    def check_network_status(self) -> str:
        """Show the phone's connection state: airplane mode, SIM, cellular connection,
        signal, network type, mobile data, data roaming and Wi-Fi."""
        d = self.device
        lines = [
            f"Airplane Mode: {_on(d.airplane_mode)}",
            f"SIM Card Status: {self.sim_status().value}",
            f"Cellular Connection: {d.network_connection_status.value}",
            f"Cellular Signal: {d.network_signal_strength.value}",
            f"Cellular Network Type: {d.network_technology_connected.value}",
            f"Mobile Data Enabled: {'Yes' if d.data_enabled else 'No'}",
            f"Data Roaming Enabled: {'Yes' if d.roaming_enabled else 'No'}",
            f"Wi-Fi Radio: {_on(d.wifi_enabled)}",
            f"Wi-Fi Connected: {'Yes' if d.wifi_connected else 'No'}",
        ]
        if d.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {d.wifi_ssid}")
        return "\n".join(lines)

    @tool()
    def check_network_mode_preference(self) -> str:
        """Show which network types the phone prefers."""
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    @tool(write=True)
    def set_network_mode_preference(self, mode: str) -> str:
        """Choose which network types the phone prefers (faster networks use more battery).

        Args:
            mode: One of 4g_5g_preferred, 4g_only, 3g_only, 2g_only.
        """
        try:
            chosen = NetworkModePreference(mode)
        except ValueError:
            names = ", ".join(m.value for m in NetworkModePreference)
            return self._with_bar(
                f"Failed to set network mode: '{mode}' is not a valid option. "
                f"Please use one of: {names}"
            )
        self.device.network_mode_preference = chosen
        self.simulate_network_search()
        return self._with_bar(f"Preferred Network Mode set to: {chosen.value}")

    @tool()
    def run_speed_test(self) -> str:
        """Measure the phone's download speed and say what it is good enough for."""
        mbps, name = self.speed()
        if mbps is None:
            return f"Speed test failed: {name or 'Could not determine speed'}."
        return f"Speed Test Result: {mbps:.2f} Mbps ({name}). {_SPEED_ADVICE.get(name, '')}"

    # -- radios ----------------------------------------------------------------------------

    def _toggle_airplane(self) -> bool:
        d = self.device
        was_on = d.airplane_mode
        d.airplane_mode = not was_on
        if was_on:
            d.network_connection_status = NetworkStatus.SEARCHING
            if d.wifi_enabled:
                self._wifi_down()
        else:
            self._wifi_down()
            if d.vpn_connected:
                self._vpn_down()
        self.simulate_network_search()
        return d.airplane_mode

    def _wifi_down(self) -> None:
        d = self.device
        d.wifi_connected = False
        d.wifi_ssid = None
        d.wifi_signal_strength = SignalStrength.NONE

    @tool(write=True)
    def toggle_airplane_mode(self) -> str:
        """Switch airplane mode on or off (on cuts every radio: cellular, Wi-Fi, Bluetooth)."""
        return self._with_bar(f"Airplane Mode is now {_on(self._toggle_airplane())}.")

    @tool()
    def check_sim_status(self) -> str:
        """Say whether the SIM card works: active, missing, or locked by PIN or PUK."""
        return {
            SimStatus.ACTIVE: "Your SIM card is active and working.",
            SimStatus.MISSING: "No SIM card detected in the phone.",
            SimStatus.LOCKED_PIN: "The SIM card is locked with a PIN code.",
            SimStatus.LOCKED_PUK: "The SIM card is locked with a PUK code.",
        }[self.sim_status()]

    @tool(write=True)
    def reseat_sim_card(self) -> str:
        """Take the SIM card out and put it back in (fixes a SIM the phone lost)."""
        self.device.sim_card_missing = False
        self.simulate_network_search()
        return self._with_bar("SIM card re-seated successfully.")

    @tool(write=True)
    def toggle_data(self) -> str:
        """Switch mobile data on or off (data over the cellular network when there is no
        Wi-Fi)."""
        d = self.device
        d.data_enabled = not d.data_enabled
        self.simulate_network_search()
        return self._with_bar(f"Mobile Data is now {_on(d.data_enabled)}.")

    @tool(write=True)
    def toggle_roaming(self) -> str:
        """Switch data roaming on or off (data on networks outside the carrier's own)."""
        d = self.device
        d.roaming_enabled = not d.roaming_enabled
        self.simulate_network_search()
        return self._with_bar(f"Data Roaming is now {_on(d.roaming_enabled)}.")

    @tool()
    def check_data_restriction_status(self) -> str:
        """Say whether Data Saver, which limits data use, is on."""
        if self.device.data_saver_mode:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    @tool(write=True)
    def toggle_data_saver_mode(self) -> str:
        """Switch Data Saver on or off (on uses less data, and data is slower)."""
        d = self.device
        d.data_saver_mode = not d.data_saver_mode
        return self._with_bar(f"Data Saver Mode is now {_on(d.data_saver_mode)}.")

    # -- APN -------------------------------------------------------------------------------

    @tool()
    def check_apn_settings(self) -> str:
        """Show the access point settings for mobile data and picture messages."""
        apn = self.device.active_apn_settings
        return (
            f"Current APN Name: {apn.apn_name.value or 'Not Set'}\n"
            f"MMSC URL (for picture messages): {apn.mmsc_url or 'Not Set'}\n"
            "(These are technical settings, usually best left unchanged.)"
        )

    @tool(write=True)
    def set_apn_settings(self, apn_settings: dict[str, Any]) -> str:
        """Replace the access point settings.

        Args:
            apn_settings: The settings: apn_name, reset_at_reboot, mms_apn, mmsc_url,
                mms_proxy, mms_port.
        """
        settings = (
            apn_settings if isinstance(apn_settings, APNSettings) else APNSettings(**apn_settings)
        )
        self.device.active_apn_settings = settings
        self.simulate_network_search()
        return self._with_bar(f"APN settings set to: {settings.apn_name.value}")

    @tool(write=True)
    def reset_apn_settings(self) -> str:
        """Put the access point settings back to the defaults at the next restart."""
        self.device.active_apn_settings.reset_at_reboot = True
        self.simulate_network_search()
        return self._with_bar("APN settings will reset at reboot.")

    # -- Wi-Fi, calling, VPN ---------------------------------------------------------------

    @tool()
    def check_wifi_status(self) -> str:
        """Say whether Wi-Fi is on, which network it is connected to, and its signal."""
        d = self.device
        if not d.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if d.wifi_connected:
            return (
                f"Wi-Fi is ON and connected to '{d.wifi_ssid}'. "
                f"Signal strength: {d.wifi_signal_strength.value}."
            )
        return "Wi-Fi is ON but not connected to any network."

    @tool(write=True)
    def toggle_wifi(self) -> str:
        """Switch the Wi-Fi radio on or off."""
        d = self.device
        if d.airplane_mode:
            return self._with_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        d.wifi_enabled = not d.wifi_enabled
        if not d.wifi_enabled:
            self._wifi_down()
        return self._with_bar(f"Wi-Fi is now {_on(d.wifi_enabled)}.")

    @tool()
    def check_wifi_calling_status(self) -> str:
        """Say whether Wi-Fi Calling (calls over Wi-Fi instead of cellular) is on."""
        return f"Wi-Fi Calling is currently turned {_on(self.device.wifi_calling_enabled)}."

    @tool(write=True)
    def toggle_wifi_calling(self) -> str:
        """Switch Wi-Fi Calling on or off."""
        d = self.device
        d.wifi_calling_enabled = not d.wifi_calling_enabled
        return self._with_bar(f"Wi-Fi Calling is now {_on(d.wifi_calling_enabled)}.")

    @tool()
    def check_vpn_status(self) -> str:
        """Say whether a VPN is set up and connected, with its details."""
        d = self.device
        if d.vpn_connected:
            if d.vpn_details is not None:
                return f"VPN is ON and connected. Details: {d.vpn_details.model_dump()}"
            return "VPN is ON and connected (no specific details available)."
        if d.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    def _vpn_up(self) -> bool:
        d = self.device
        if d.vpn_connected:
            return False
        d.vpn_connected = True
        d.vpn_details = VpnDetails(
            server_address="192.168.1.1",
            protocol="OpenVPN",
            server_performance=PerformanceLevel.EXCELLENT,
        )
        return True

    def _vpn_down(self) -> bool:
        d = self.device
        if not d.vpn_connected:
            return False
        d.vpn_connected = False
        d.vpn_details = None
        return True

    @tool(write=True)
    def connect_vpn(self) -> str:
        """Connect the VPN."""
        if not self._vpn_up():
            return "VPN already connected."
        return self._with_bar("VPN connected successfully.")

    @tool(write=True)
    def disconnect_vpn(self) -> str:
        """Disconnect the VPN (traffic then goes straight out, which may change its speed)."""
        done = self._vpn_down()
        text = (
            "VPN disconnected successfully." if done else "No active VPN connection to disconnect."
        )
        return self._with_bar(text)

    # -- apps, MMS, device -----------------------------------------------------------------

    @tool()
    def check_installed_apps(self) -> str:
        """List the apps installed on the phone."""
        names = ", ".join(self.device.app_statuses)
        return f"The following apps are installed on the phone: {names}"

    def _granted(self, app_name: str) -> list[str] | None:
        app = self.device.app_statuses.get(app_name)
        if app is None:
            return None
        return [n.replace("_", " ").lower() for n, on in app.permissions.model_dump().items() if on]

    @tool()
    def check_app_status(self, app_name: str) -> str:
        """Show an app's details and the permissions it has.

        Args:
            app_name: The app, e.g. messaging.
        """
        granted = self._granted(app_name)
        if granted is None:
            return f"App '{app_name}' not found on this phone."
        lines = [f"Status for App: {app_name}"]
        if not granted:
            lines.append(" - Permissions: None granted.")
        else:
            lines.append(" - Permissions Granted:")
            lines.extend(f"   - {p}" for p in granted)
        return "\n".join(lines)

    @tool()
    def check_app_permissions(self, app_name: str) -> str:
        """Show which permissions (storage, SMS, phone, network) an app has.

        Args:
            app_name: The app, e.g. messaging.
        """
        granted = self._granted(app_name)
        if granted is None:
            return f"App '{app_name}' not found on this phone."
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    @tool(write=True)
    def grant_app_permission(self, app_name: str, permission: str) -> str:
        """Give an app a permission some of its functions need.

        Args:
            app_name: The app, e.g. messaging.
            permission: The permission, in lower case: sms, storage, phone or network.
        """
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if app is None:
            text = f"Error. App '{app_name}' not found. Cannot grant permission."
        elif permission not in AppPermissionsNames:
            text = (
                f"Error. Permission '{permission}' not tracked for app '{app_name}', "
                f"available permissions: {list(AppPermissionsNames)}"
            )
        else:
            setattr(app.permissions, permission, True)
            text = f"Success. Permission '{permission}' granted to app '{app_name}'."
        return self._with_bar(text)

    @tool()
    def can_send_mms(self) -> str:
        """Say whether the messaging app can send picture messages (MMS)."""
        if self.mms_works():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    @tool(write=True)
    def reboot_device(self) -> str:
        """Restart the phone (clears many passing glitches; applies a pending APN reset)."""
        lines = []
        d = self.device
        if d.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            d.active_apn_settings = APNSettings()
        lines.append("Restarting network services...")
        d.network_connection_status = NetworkStatus.SEARCHING
        self.simulate_network_search()
        return self._with_bar("\n".join(lines))

    @tool()
    def check_payment_request(self) -> str:
        """Say whether the agent has sent a request to pay a bill."""
        request = self.db.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {request.amount_due} USD."

    @tool(write=True)
    def make_payment(self) -> str:
        """Pay the bill the agent sent a payment request for."""
        request = self.db.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

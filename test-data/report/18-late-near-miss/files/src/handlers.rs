//! Handlers for every endpoint.

use crate::http::{Request, Response};

pub fn handle_01(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("01: {body}"))
}

pub fn handle_02(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("02: {body}"))
}

pub fn handle_03(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("03: {body}"))
}

pub fn handle_04(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("04: {body}"))
}

pub fn handle_05(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("05: {body}"))
}

pub fn handle_06(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("06: {body}"))
}

pub fn handle_07(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("07: {body}"))
}

pub fn handle_08(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("08: {body}"))
}

pub fn handle_09(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("09: {body}"))
}

pub fn handle_10(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("10: {body}"))
}

pub fn handle_11(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("11: {body}"))
}

pub fn handle_12(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("12: {body}"))
}

pub fn handle_13(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("13: {body}"))
}

pub fn handle_14(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("14: {body}"))
}

pub fn handle_15(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("15: {body}"))
}

pub fn handle_16(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("16: {body}"))
}

pub fn handle_17(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("17: {body}"))
}

pub fn handle_18(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("18: {body}"))
}

pub fn handle_19(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("19: {body}"))
}

pub fn handle_20(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("20: {body}"))
}

pub fn handle_21(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("21: {body}"))
}

pub fn handle_22(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("22: {body}"))
}

pub fn handle_23(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("23: {body}"))
}

pub fn handle_24(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("24: {body}"))
}

pub fn handle_25(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("25: {body}"))
}

pub fn handle_26(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("26: {body}"))
}

pub fn handle_27(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("27: {body}"))
}

pub fn handle_28(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("28: {body}"))
}

pub fn handle_29(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("29: {body}"))
}

pub fn handle_30(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("30: {body}"))
}

pub fn handle_31(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("31: {body}"))
}

pub fn handle_32(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("32: {body}"))
}

pub fn handle_33(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("33: {body}"))
}

pub fn handle_34(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("34: {body}"))
}

pub fn handle_35(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("35: {body}"))
}

pub fn handle_36(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("36: {body}"))
}

pub fn handle_37(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("37: {body}"))
}

pub fn handle_38(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("38: {body}"))
}

pub fn handle_39(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("39: {body}"))
}

pub fn handle_40(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("40: {body}"))
}

pub fn handle_41(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("41: {body}"))
}

pub fn handle_42(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("42: {body}"))
}

pub fn handle_43(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("43: {body}"))
}

pub fn handle_44(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("44: {body}"))
}

pub fn handle_45(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("45: {body}"))
}

pub fn handle_46(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("46: {body}"))
}

pub fn handle_47(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("47: {body}"))
}

pub fn handle_48(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("48: {body}"))
}

pub fn handle_49(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("49: {body}"))
}

pub fn handle_50(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("50: {body}"))
}

pub fn handle_51(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("51: {body}"))
}

pub fn handle_52(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("52: {body}"))
}

pub fn handle_53(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("53: {body}"))
}

pub fn handle_54(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("54: {body}"))
}

pub fn handle_55(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("55: {body}"))
}

pub fn handle_56(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("56: {body}"))
}

pub fn handle_57(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("57: {body}"))
}

pub fn handle_58(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("58: {body}"))
}

pub fn handle_59(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("59: {body}"))
}

pub fn handle_60(req: &Request) -> Response {
    let body = req.body_as_str();
    Response::ok(format!("60: {body}"))
}

pub fn handle_upload(req: &Request) -> Response {
    let payload = req.body_as_bytes();
    let stored = storage::save(payload);
    Response::created(stored.url())
}
